//! A throwaway PostgreSQL database for a fixture program (the fault drill,
//! the queue benchmark), made and dropped with `psql`, the client that
//! Debian's PostgreSQL packages install.

use std::process::{Command, Stdio};

/// A database of its own on the given server, dropped at the end.
#[derive(Debug)]
pub struct Database {
    admin: String,
    name: String,
    /// Its URL.
    pub url: String,
}

impl Database {
    /// `CREATE DATABASE` (through `psql`) a new database named after
    /// `prefix` on the server of `admin` (a URL of a database there that
    /// the user may connect to).
    pub fn create(admin: &str, prefix: &str) -> Result<Database, String> {
        let name = format!("{prefix}_{}_{}", std::process::id(), crate::bench::now_ns());
        psql(admin, &format!("CREATE DATABASE {name} TEMPLATE template0"))?;
        let (head, query) = admin.split_once('?').unwrap_or((admin, ""));
        let base = head
            .rfind('/')
            .filter(|i| *i > "postgres://".len())
            .map(|i| &head[..i])
            .ok_or_else(|| "the PostgreSQL URL names no database".to_owned())?;
        let url = if query.is_empty() {
            format!("{base}/{name}")
        } else {
            format!("{base}/{name}?{query}")
        };
        Ok(Database {
            admin: admin.to_owned(),
            name,
            url,
        })
    }
}

impl Database {
    /// Its name on the server.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        if let Err(e) = psql(&self.admin, &sql) {
            eprintln!("could not drop the database {}: {e}", self.name);
        }
    }
}

/// Run `sql` (through `psql`) on the database of `url`; its rows, one a
/// line, columns separated by `|`.
pub fn query(url: &str, sql: &str) -> Result<String, String> {
    psql_out(url, sql, &["-At"])
}

fn psql(url: &str, sql: &str) -> Result<(), String> {
    psql_out(url, sql, &[]).map(drop)
}

fn psql_out(url: &str, sql: &str, flags: &[&str]) -> Result<String, String> {
    let out = Command::new("psql")
        .arg(url)
        .args(flags)
        .args(["-v", "ON_ERROR_STOP=1", "-qc", sql])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("psql: {e} (is the PostgreSQL client installed?)"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "psql `{sql}`: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
