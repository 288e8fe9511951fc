use agentgate_protocol::WireApi;

use super::*;
use agentgate_providers::gemini::GEMINI;

#[test]
fn an_api_key_goes_to_the_gemini_api_unless_a_base_url_is_set() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".gemini/settings.json",
        "{\"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}}",
    );
    let p = plan("gemini", &[("GEMINI_API_KEY", REAL)], home.path(), None).unwrap();
    assert_eq!(p.api, WireApi::Gemini);
    assert_eq!(p.upstream, "https://generativelanguage.googleapis.com");
    assert_eq!(api_key(&p), (REAL, "GEMINI_API_KEY"));
    assert_eq!(p.pointing, Pointing::Gemini);

    let empty = tempfile::tempdir().unwrap();
    let p = plan(
        "gemini",
        &[
            ("GEMINI_API_KEY", REAL),
            (
                "GOOGLE_GEMINI_BASE_URL",
                "https://proxy.corp.example/gemini/",
            ),
        ],
        empty.path(),
        None,
    )
    .unwrap();
    assert_eq!(p.upstream, "https://proxy.corp.example/gemini");
    assert_eq!(api_key(&p), (REAL, "GEMINI_API_KEY"));
}

#[test]
fn a_google_login_vertex_and_no_key_are_not_supported() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".gemini/settings.json",
        "{\"security\": {\"auth\": {\"selectedType\": \"oauth-personal\"}}}",
    );
    let text =
        error_text(plan("gemini", &[("GEMINI_API_KEY", REAL)], home.path(), None).unwrap_err());
    assert!(
        text.contains("not supported") && text.contains("Code Assist"),
        "{text}"
    );

    let other = tempfile::tempdir().unwrap();
    let text = error_text(
        plan(
            "gemini",
            &[("GOOGLE_GENAI_USE_VERTEXAI", "true")],
            other.path(),
            None,
        )
        .unwrap_err(),
    );
    assert!(text.contains("Vertex"), "{text}");

    // A Google login's file and no key: the CLI would use the login.
    write(other.path(), ".gemini/oauth_creds.json", "{}");
    let text = error_text(plan("gemini", &[], other.path(), None).unwrap_err());
    assert!(text.contains("Code Assist"), "{text}");

    let bare = tempfile::tempdir().unwrap();
    let text = error_text(plan("gemini", &[], bare.path(), None).unwrap_err());
    assert!(text.contains("GEMINI_API_KEY"), "{text}");
}

#[test]
fn the_command_points_at_the_gateway_with_the_stub_and_drops_both_key_names() {
    let home = tempfile::tempdir().unwrap();
    let p = plan("gemini", &[("GEMINI_API_KEY", REAL)], home.path(), None).unwrap();
    let req = request(p, &["GEMINI_API_KEY", "GOOGLE_API_KEY"]);
    let pointed = point(
        &GEMINI,
        &req,
        &[("GOOGLE_API_KEY", REAL), ("GEMINI_API_KEY", REAL)],
    );
    assert_eq!(pointed.var("GOOGLE_GEMINI_BASE_URL"), Some(GATEWAY));
    assert_eq!(pointed.var("GEMINI_API_KEY"), Some(STUB));
    assert_eq!(pointed.var("GOOGLE_API_KEY"), None);
    pointed.assert_no_real_key();

    let warm = point_warm(&GEMINI, &req);
    assert!(
        warm.env
            .iter()
            .any(|(k, v)| k == "GEMINI_API_KEY" && v == STUB)
    );
}
