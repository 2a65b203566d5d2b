"""The mailing list's rules: one formatted address per recipient, typo-tolerant duplicates,
condominium units, the tax list's fiscal year and the orders clerks sort a list in."""
