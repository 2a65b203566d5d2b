"""The abutter notification job: abutters, owners and the package's checks."""
