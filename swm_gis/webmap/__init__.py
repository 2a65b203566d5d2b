"""The public web map job: a static site built from the applicability map."""
