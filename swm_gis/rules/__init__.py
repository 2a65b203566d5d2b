"""Pure rules on frames: Chapter 320's thresholds, standards and notice rules; they read no file."""
