"""Results in forms other tools read: per-job tables (:mod:`gangviz.results.jobs`)."""
