//! The seed's argument convention: `--name value` pairs, and `--selftest`.

/// The value after `name` (`--input`) in `args`, if any.
pub fn arg_value<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.windows(2)
        .find(|pair| pair[0] == name)
        .map(|pair| pair[1].as_str())
}

/// With `--selftest` among `args`: prints `{"selftest":"ok"}` and returns
/// true (the tool then exits 0), as `tools check` expects.
pub fn answer_selftest(args: &[String]) -> bool {
    let asked = args.iter().any(|a| a == "--selftest");
    if asked {
        println!("{}", serde_json::json!({"selftest": "ok"}));
    }
    asked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_follow_their_names() {
        let args: Vec<String> = ["--input", "a.json", "--output", "b.json", "--flag"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(arg_value(&args, "--input"), Some("a.json"));
        assert_eq!(arg_value(&args, "--output"), Some("b.json"));
        assert_eq!(arg_value(&args, "--flag"), None);
        assert_eq!(arg_value(&args, "--missing"), None);
        assert!(!answer_selftest(&args));
    }
}
