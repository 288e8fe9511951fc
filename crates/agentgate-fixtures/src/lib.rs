//! What the fixture programs share: the benchmarks' plain HTTP client for a
//! real `agentgate serve`, their bounded waits, reading processes from
//! /proc, and a headless Chromium over WebDriver. Nothing here is part of agentgate itself.

pub mod bench;
pub mod database;
pub mod sse_delay;
pub mod webdriver;
