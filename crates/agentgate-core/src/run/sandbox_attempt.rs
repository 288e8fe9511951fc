//! An attempt's CLI confined to its step's sandbox (`--sandbox`): the
//! environment allowlist, the files (Landlock through `agentgate
//! __sandbox`), the network (`strict`: a namespace of its own whose only
//! ports are relayed to the run's gateway and egress proxy), or a container
//! (`container.rs`); and the envelope's `sandbox` report.
