"""Town configuration: the TOML file read into typed objects, strictly checked."""
