//! A store URL as it may be shown: [`redact_url`]. Every message that
//! names a store (errors, logs, `Debug`) goes through it, on any backend.

/// `url` without its password: `postgres://user:secret@host/db` becomes
/// `postgres://user@host/db`; `password=` and `sslpassword=` parameters
/// are dropped too.
pub fn redact_url(url: &str) -> String {
    let (head, query) = match url.split_once('?') {
        Some((head, query)) => (head, Some(query)),
        None => (url, None),
    };
    let mut out = match head.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = match rest.find('/') {
                Some(i) => rest.split_at(i),
                None => (rest, ""),
            };
            let authority = match authority.rsplit_once('@') {
                Some((userinfo, hosts)) => {
                    let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
                    format!("{user}@{hosts}")
                }
                None => authority.to_owned(),
            };
            format!("{scheme}://{authority}{path}")
        }
        None => head.to_owned(),
    };
    if let Some(query) = query {
        let kept: Vec<&str> = query
            .split('&')
            .filter(|pair| {
                let pair = pair.to_ascii_lowercase();
                !pair.starts_with("password=") && !pair.starts_with("sslpassword=")
            })
            .collect();
        if !kept.is_empty() {
            out.push('?');
            out.push_str(&kept.join("&"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_left_out_of_the_url() {
        assert_eq!(
            redact_url("postgres://bob:s3cret@db.example:5432/agentgate?sslmode=require"),
            "postgres://bob@db.example:5432/agentgate?sslmode=require"
        );
        assert_eq!(
            redact_url("postgresql://localhost/db?host=/run/pg&password=s3cret&sslpassword=k3y"),
            "postgresql://localhost/db?host=/run/pg"
        );
        assert_eq!(
            redact_url("postgres://a:b:c@h/d"),
            "postgres://a@h/d",
            "everything after the first colon of the user info is the password"
        );
        assert_eq!(redact_url("postgres:///db"), "postgres:///db");
    }
}
