"""The screening job: one site's checks, its findings (statuses) and checklist."""
