//! `agentgate token create|list|revoke`: the API tokens of `agentgate
//! serve`, on the store directly (as `agentgate runs` reads it). The work
//! is the store's ([`agentgate_store::create_api_token`],
//! [`agentgate_store::TokenStore`]); this parses flags and prints. A new
//! token is printed once, on stdout; the store keeps only its hash.

use std::process::ExitCode;

use agentgate_store::{NewApiToken, Scope, SpendLimits, TokenBudget, TokenLimits};
use anyhow::anyhow;

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(Debug, clap::Subcommand)]
enum TokenCommand {
    /// Make a token and print it (once: the store keeps only its SHA-256).
    Create(CreateArgs),
    /// List the tokens (never the secret): name, team, scopes, state,
    /// expiry, last use.
    List {
        /// One JSON object per token instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a token: a server refuses it at its next request (401).
    Revoke {
        /// The token's name.
        name: String,
    },
}

#[derive(Debug, clap::Args)]
struct CreateArgs {
    /// Its unique name (letters, digits, `.`, `_`, `-`).
    #[arg(long)]
    name: String,
    /// A scope: read, read:all, submit, cancel, approve or admin (repeat
    /// for more; admin implies all, read:all implies read).
    #[arg(long = "scope", value_name = "SCOPE", required = true)]
    scopes: Vec<Scope>,
    /// Its team: then `read` sees only the runs the team's tokens
    /// submitted (unless it has read:all).
    #[arg(long)]
    team: Option<String>,
    /// When it stops working: a duration (30d, 12h, 90m) or an RFC 3339
    /// time.
    #[arg(long, value_name = "WHEN")]
    expires: Option<String>,
    /// The most of its runs queued or running at once (a submit past it:
    /// 429).
    #[arg(long, value_name = "N")]
    max_running: Option<u32>,
    /// What the runs it submits may spend per UTC day, in USD, together
    /// (past it a run stops with `budget`; see `budgets.when_over`).
    #[arg(long, value_name = "USD")]
    day_max_cost: Option<f64>,
    /// What they may spend per calendar month (UTC), in USD.
    #[arg(long, value_name = "USD")]
    month_max_cost: Option<f64>,
    /// The most tokens (input + output) they may use per UTC day.
    #[arg(long, value_name = "N")]
    day_max_tokens: Option<u64>,
    /// The most tokens they may use per calendar month (UTC).
    #[arg(long, value_name = "N")]
    month_max_tokens: Option<u64>,
    /// Print the token and its record as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(
    args: Args,
    config: Option<&std::path::Path>,
    store: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let store = crate::store_open::open_store(config, store)?;
    let tokens = store
        .token_store()
        .ok_or_else(|| anyhow!("this store keeps no API tokens"))?;
    let now = jiff::Timestamp::now();
    let mut out = Stdout::new();
    match args.command {
        TokenCommand::Create(c) => {
            let expires_at = c
                .expires
                .as_deref()
                .map(|text| agentgate_store::parse_expiry(text, now))
                .transpose()
                .map_err(|m| anyhow!("--expires: {m}"))?;
            let new = NewApiToken {
                name: c.name,
                scopes: c.scopes,
                team: c.team,
                expires_at,
                limits: TokenLimits {
                    max_running: c.max_running,
                    budget: TokenBudget {
                        day: SpendLimits {
                            max_cost_usd: c.day_max_cost,
                            max_tokens: c.day_max_tokens,
                        },
                        month: SpendLimits {
                            max_cost_usd: c.month_max_cost,
                            max_tokens: c.month_max_tokens,
                        },
                    },
                },
            };
            let (token, record) = agentgate_store::create_api_token(tokens, new, now)?;
            if c.json {
                let mut value = serde_json::to_value(&record)?;
                value["token"] = serde_json::Value::from(token);
                out.json_line(&value)?;
            } else {
                out.line(format_args!("{token}"))?;
                crate::output::note!(
                    "token `{}` made; it is shown this once (the store keeps its hash only)",
                    record.name
                );
            }
        }
        TokenCommand::List { json } => {
            let records = tokens.list_tokens()?;
            if json {
                for r in &records {
                    out.json_line(&serde_json::to_value(r)?)?;
                }
                return Ok(ExitCode::SUCCESS);
            }
            out.line(format_args!(
                "{:<20} {:<12} {:<8} {:<20} {:<20} {:<20} SCOPES",
                "NAME", "TEAM", "STATE", "CREATED", "EXPIRES", "LAST USED"
            ))?;
            let time = |t: Option<jiff::Timestamp>| {
                t.map_or("-".to_owned(), |t| {
                    t.strftime("%Y-%m-%d %H:%M:%S").to_string()
                })
            };
            for r in &records {
                let state = if r.revoked_at.is_some() {
                    "revoked"
                } else if r.refused_at(now) {
                    "expired"
                } else {
                    "active"
                };
                let scopes: Vec<&str> = r.scopes.iter().map(|s| s.name()).collect();
                out.line(format_args!(
                    "{:<20} {:<12} {:<8} {:<20} {:<20} {:<20} {}",
                    r.name,
                    r.team.as_deref().unwrap_or("-"),
                    state,
                    time(Some(r.created_at)),
                    time(r.expires_at),
                    time(r.last_used_at),
                    scopes.join(","),
                ))?;
            }
        }
        TokenCommand::Revoke { name } => {
            if !tokens.revoke_token(&name, now)? {
                return Err(anyhow!("no live token is named `{name}`"));
            }
            crate::output::note!("token `{name}` revoked");
        }
    }
    Ok(ExitCode::SUCCESS)
}
