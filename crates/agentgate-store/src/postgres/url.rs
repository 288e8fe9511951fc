//! A libpq connection URL made into one the driver (tokio-postgres) reads
//! the same way.
//!
//! Two things differ between them. The driver knows `sslmode` only as
//! `disable`, `prefer` and `require` and refuses `sslrootcert`: both are
//! taken out here and handed to `tls.rs`. And where the query names hosts
//! (`postgres://u@localhost/db?host=/run/postgresql`), libpq connects to
//! those only, while the driver would try the URL's own host first: the
//! URL's hosts are taken out (their ports kept as a `port` parameter).
//! And libpq's `tcp_user_timeout` is in milliseconds, the driver's in
//! seconds: it is converted (rounded up).
//! Parameters are %-decoded as libpq does (no `+` for space). No error
//! here contains the URL (it may hold a password).

use std::path::PathBuf;

use super::tls::{RootCerts, SslMode, TlsSettings};

/// Splits `url` into the URL the driver parses (without `sslmode` and
/// `sslrootcert`) and the TLS settings. Errors never contain the URL.
pub(crate) fn split_url(url: &str) -> Result<(String, TlsSettings), String> {
    let mut settings = TlsSettings {
        mode: SslMode::Prefer,
        root_cert: None,
    };
    let Some((head, query)) = url.split_once('?') else {
        return Ok((url.to_owned(), settings));
    };
    let mut kept = Vec::new();
    let (mut query_host, mut query_port) = (false, false);
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode(key)?;
        match key.as_str() {
            "sslmode" => settings.mode = SslMode::parse(&percent_decode(value)?)?,
            "sslrootcert" => {
                let value = percent_decode(value)?;
                settings.root_cert = Some(match value.as_str() {
                    "" => return Err("sslrootcert is empty: give a PEM file's path".to_owned()),
                    "system" => RootCerts::System,
                    path => RootCerts::File(PathBuf::from(path)),
                });
            }
            "sslcert" | "sslkey" | "sslpassword" | "sslcertmode" => {
                return Err(format!(
                    "`{key}`: client certificates are not supported; authenticate with a \
                     password or the server's other methods"
                ));
            }
            "sslcrl" | "sslcrldir" => {
                return Err(format!(
                    "`{key}`: certificate revocation lists are not supported"
                ));
            }
            // libpq reads milliseconds, the driver seconds.
            "tcp_user_timeout" => {
                let ms: u64 = percent_decode(value)?
                    .parse()
                    .map_err(|_| "tcp_user_timeout: not a number of milliseconds".to_owned())?;
                kept.push(format!("tcp_user_timeout={}", ms.div_ceil(1000)));
            }
            other => {
                query_host |= other == "host";
                query_port |= other == "port";
                kept.push(pair.to_owned());
            }
        }
    }
    let head = match query_host {
        true => without_authority_hosts(head, query_port, &mut kept),
        false => head.to_owned(),
    };
    let url = if kept.is_empty() {
        head
    } else {
        format!("{head}?{}", kept.join("&"))
    };
    Ok((url, settings))
}

/// `head` (a URL without its query) with the hosts of its authority taken
/// out, as a `host` parameter in the query replaces them in libpq; their
/// ports become a `port` parameter unless the query has one.
fn without_authority_hosts(head: &str, query_port: bool, kept: &mut Vec<String>) -> String {
    let Some((scheme, rest)) = head.split_once("://") else {
        return head.to_owned();
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let (userinfo, hosts) = match authority.rsplit_once('@') {
        Some((userinfo, hosts)) => (format!("{userinfo}@"), hosts),
        None => (String::new(), authority),
    };
    let ports: Vec<&str> = hosts
        .split(',')
        .map(|chunk| {
            // `[::1]:5432`, `db:5432`, `db`
            let after_bracket = chunk.rfind(']').map_or(chunk, |i| &chunk[i + 1..]);
            after_bracket.rsplit_once(':').map_or("", |(_, port)| port)
        })
        .collect();
    if !query_port && ports.iter().any(|port| !port.is_empty()) {
        kept.push(format!("port={}", ports.join(",")));
    }
    format!("{scheme}://{userinfo}{path}")
}

/// `%XX` escapes of a URL's query decoded (libpq does not read `+` as a
/// space, nor does this).
fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|pair| std::str::from_utf8(pair).ok())
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| "a bad %-escape in the URL's parameters".to_owned())?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "a URL parameter is not UTF-8 once decoded".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str) -> (String, TlsSettings) {
        split_url(url).unwrap()
    }

    #[test]
    fn tcp_user_timeout_is_read_in_milliseconds_as_libpq_reads_it() {
        let (url, _) = settings("postgres://u@db/x?tcp_user_timeout=2500&sslmode=disable");
        assert_eq!(url, "postgres://u@db/x?tcp_user_timeout=3");
        assert!(split_url("postgres://u@db/x?tcp_user_timeout=soon").is_err());
    }

    #[test]
    fn the_default_is_prefer_and_the_url_is_untouched() {
        let url = "postgres://u:pw@db.example/agentgate?application_name=x";
        let (driver_url, tls) = settings(url);
        assert_eq!(driver_url, url);
        assert_eq!(tls.mode, SslMode::Prefer);
        assert_eq!(tls.root_cert, None);
    }

    #[test]
    fn sslmode_and_sslrootcert_are_taken_out_and_decoded() {
        let (driver_url, tls) = settings(
            "postgres://u@db/agentgate?connect_timeout=5&sslmode=verify-full\
             &sslrootcert=%2Fetc%2Fpg%20ca.pem&application_name=x",
        );
        assert_eq!(
            driver_url,
            "postgres://u@db/agentgate?connect_timeout=5&application_name=x"
        );
        assert_eq!(tls.mode, SslMode::VerifyFull);
        assert_eq!(
            tls.root_cert,
            Some(RootCerts::File(PathBuf::from("/etc/pg ca.pem")))
        );
        let (driver_url, tls) = settings("postgres://u@db/a?sslmode=verify-ca&sslrootcert=system");
        assert_eq!(driver_url, "postgres://u@db/a");
        assert_eq!(
            (tls.mode, tls.root_cert),
            (SslMode::VerifyCa, Some(RootCerts::System))
        );
        for (value, mode) in [
            ("disable", SslMode::Disable),
            ("allow", SslMode::Allow),
            ("prefer", SslMode::Prefer),
            ("require", SslMode::Require),
        ] {
            assert_eq!(
                settings(&format!("postgres://h/d?sslmode={value}")).1.mode,
                mode
            );
        }
    }

    #[test]
    fn an_unknown_sslmode_is_named_and_the_url_is_not_repeated() {
        let err = split_url("postgres://u:s3cret@db/a?sslmode=verify_full").unwrap_err();
        assert!(err.contains("unknown sslmode `verify_full`"), "{err}");
        assert!(!err.contains("s3cret"), "{err}");
        let err = split_url("postgres://u:s3cret@db/a?sslcert=/c.pem").unwrap_err();
        assert!(
            err.contains("client certificates are not supported"),
            "{err}"
        );
        let err = split_url("postgres://u@db/a?sslrootcert=%zz").unwrap_err();
        assert!(err.contains("%-escape"), "{err}");
    }

    #[test]
    fn hosts_in_the_query_replace_the_urls_own_as_in_libpq() {
        let (driver_url, _) = settings("postgres://u:pw@localhost/db?host=/run/pg&sslmode=require");
        assert_eq!(driver_url, "postgres://u:pw@/db?host=/run/pg");
        let config: tokio_postgres::Config = driver_url.parse().unwrap();
        assert_eq!(config.get_hosts().len(), 1);
        let (driver_url, _) = settings("postgres://u@localhost:5433/db?host=/run/pg");
        assert_eq!(driver_url, "postgres://u@/db?host=/run/pg&port=5433");
        let config: tokio_postgres::Config = driver_url.parse().unwrap();
        assert_eq!(config.get_ports(), [5433]);
        let (driver_url, _) = settings("postgres://[::1]:5433,db/x?port=6000&host=/a,/b");
        assert_eq!(driver_url, "postgres:///x?port=6000&host=/a,/b");
        let (driver_url, _) = settings("postgres://u@db:5433/x?application_name=y");
        assert_eq!(driver_url, "postgres://u@db:5433/x?application_name=y");
    }
}
