"""The applicability job: every parcel of the town classified (locally or on Dask), written out."""
