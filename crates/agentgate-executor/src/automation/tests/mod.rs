//! The automation's tests: the runner, the schedules, the watched folders.

mod runner;
mod schedule;
mod watch;
mod watch_gardener;
