// Placeholder so the target has a source until the module grows one. Remove when others exist.
