"""What the web layer asks of the store and of the long-running machinery: the quiz attempt workflow,
certificates, training runs and their worker processes, the rate-limit counters, the database's sessions and
readiness. Routes parse, call a service, and render; in the web layer only this package reaches app.store
(tests/unit/test_layers.py holds that). This file imports nothing, so a training worker process that loads
app.services.train_process loads no more than that module needs."""
