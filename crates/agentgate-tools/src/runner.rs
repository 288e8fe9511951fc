//! One tool run: policy check, workspace, scoped environment, the sandbox
//! under the supervisor, the heartbeat watchdog, cancellation, the output
//! cap, artifact checks, exit-code mapping, the store, the envelope.
