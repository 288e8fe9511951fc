//! Google Antigravity's CLI (`agy --print=PROMPT`).
//!
//! agy prints its answer as plain text and its errors as plain text, on
//! stderr, sometimes with exit status 0 and nothing on stdout; the decoder
//! turns its known error lines (and stderr text after an empty answer) into
//! terminal errors, which these rows classify. agy relays the Google API's
//! own words (`RESOURCE_EXHAUSTED`, "The model is overloaded"), which the
//! common rows and HTTP status defaults also read.
//!
//! Its quota message comes in two shapes: "Individual quota reached. Contact
//! your administrator to enable overages. Resets in 141h28m14s." (1.0.x and
//! later) and "... reached the quota limit for this model ... resume using
//! this model at 4:05 PM"; both carry the reset time.
//!
//! The rows are built from agy's public docs, changelog and texts quoted in
//! public issue threads (listed in
//! `crates/agentgate-fixtures/transcripts/README.md`), not from a live CLI.

use agentgate_protocol::ErrorKind::{
    Auth, CredentialUnavailable, InvalidModel, Quota, RateLimit, Timeout,
};

use crate::classify::{ProviderTable, Rule};

/// agy's table.
pub static ERRORS: ProviderTable = ProviderTable {
    name: "agy",
    rules: &[
        Rule::text(
            "agy.quota",
            Quota,
            r"Individual quota reached|reached the quota limit for this model|reached your .{0,40}usage limit|\bQUOTA_EXHAUSTED\b",
        ),
        // Google's per-minute limit, relayed: "Resource has been exhausted
        // (e.g. check quota)." with status RESOURCE_EXHAUSTED.
        Rule::text(
            "agy.rate_limit",
            RateLimit,
            r"Resource has been exhausted|\bRESOURCE_EXHAUSTED\b",
        ),
        // No usable login here: agy waits for a browser sign-in it cannot get.
        Rule::text(
            "agy.not_logged_in",
            CredentialUnavailable,
            r"not logged into Antigravity|Authentication required|waiting for authentication|authentication timed out|please sign in",
        ),
        // A login that Google rejected.
        Rule::text(
            "agy.invalid_credentials",
            Auth,
            r"invalid authentication credentials|\bUNAUTHENTICATED\b",
        ),
        Rule::text(
            "agy.model",
            InvalidModel,
            r"invalid model selection|is not recognized as a known model",
        ),
        // agy's own --print-timeout expired with the turn still running.
        Rule::text("agy.print_timeout", Timeout, r"^\s*\[agy\] print timeout\b"),
    ],
    exit_statuses: &[],
    answer_error: None,
    retry_notices: &[],
    noise: &[],
};
