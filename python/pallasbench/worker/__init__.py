"""The harness's Python workers, one module per role, each run as
`python -u -m pallasbench.worker.<role>`: tracer (untrusted: imports and traces a candidate),
executor (trusted: compiles, runs and times the traced module), reference (trusted: tasks,
inputs, reference outputs, the XLA baseline). server and protocol are the JSON-lines protocol
they share (docs/protocol.md); the other modules are what the roles use."""
