//! What a model call means, read off the bytes: which API a path belongs
//! to, the request's model and stream flag, the usage a response carries
//! (summed by a tap as the body streams by), the rate-limit headers, and
//! each API's own error shape. Pure functions, no I/O.
//!
//! - [`path`]: [`api_of`] and [`request_facts`].
//! - [`tap`]: [`ResponseTap`], per API (Anthropic Messages, OpenAI
//!   Responses, OpenAI Chat, Gemini), over SSE or a JSON body.
//! - [`rate_limits`](mod@rate_limits): [`rate_limits()`] and its windows.
//! - [`error_shape`]: [`error_response`] (what the gateway answers) and
//!   [`error_text`](error_shape::error_text) (what an upstream's error said).
//!
//! Imports go one way: `tap` → `error_shape`; the others are leaves.

pub mod error_shape;
pub mod path;
pub mod rate_limits;
pub mod tap;

pub use error_shape::error_response;
pub use path::{RequestFacts, api_of, request_facts};
pub use rate_limits::{RateLimits, rate_limits};
pub use tap::{ResponseTap, TapReport};
