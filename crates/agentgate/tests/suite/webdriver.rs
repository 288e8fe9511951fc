//! A real Chromium driven over WebDriver (Debian's `chromium` and
//! `chromium-driver`, installed by scripts/install-browser.sh;
//! `AGENTGATE_CHROMIUM` / `AGENTGATE_CHROMEDRIVER` name others): the
//! fixtures' [`Chromium`] (chromedriver on a free port, one headless
//! session), with the commands the dashboard tests need, each failing
//! the test when WebDriver refuses it. Every wait is bounded.

use std::path::Path;
use std::time::{Duration, Instant};

use agentgate_fixtures::webdriver::{Chromium, browser_paths};
use serde_json::{Value, json};

/// How long an element may take to appear.
pub const WAIT: Duration = Duration::from_secs(30);

pub struct Browser {
    chromium: Chromium,
}

impl Browser {
    /// A headless Chromium, its window 1280x1500 (the whole dashboard).
    pub fn start() -> Browser {
        let (chromium, chromedriver) = browser_paths();
        let chromium = Chromium::start(&chromium, &chromedriver, 1280, 1500)
            .unwrap_or_else(|e| panic!("no browser: {e}"));
        Browser { chromium }
    }

    /// One command of the session (`path` after `/session/{id}`); its `value`.
    fn session_call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.chromium
            .command(method, path, body.as_ref())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn goto(&self, url: &str) {
        self.session_call("POST", "/url", Some(json!({"url": url})));
    }

    /// Open the dashboard of the server at `url` and log in with `token`,
    /// waiting until the page says it is connected.
    pub fn login(&self, url: &str, token: &str) {
        self.goto(&format!("{url}/"));
        self.type_into("#token-input", token);
        self.click("#token-form button");
        self.wait_text("#server-state", "connected", |t| t == "connected");
    }

    /// Run `script` (a function body; `arguments` are `args`) in the page.
    pub fn script(&self, script: &str, args: Value) -> Value {
        self.session_call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
    }

    /// The element `css` matches, waiting for it to exist and be shown.
    pub fn find(&self, css: &str) -> String {
        let mut id = String::new();
        self.wait_until(&format!("{css} shown"), || {
            let shown = self.script(
                "const e = document.querySelector(arguments[0]); return !!e && e.offsetParent !== null;",
                json!([css]),
            );
            if shown != json!(true) {
                return false;
            }
            let v = self.session_call(
                "POST",
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            );
            id = v
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(Value::as_str)
                .unwrap()
                .to_owned();
            true
        });
        id
    }

    pub fn click(&self, css: &str) {
        let id = self.find(css);
        self.session_call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    pub fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.session_call(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({"text": text})),
        );
    }

    /// The text of what `css` matches ("" when nothing does).
    pub fn text(&self, css: &str) -> String {
        self.script(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';",
            json!([css]),
        )
        .as_str()
        .unwrap_or_default()
        .to_owned()
    }

    /// Wait (at most [`WAIT`]) until `css`'s text satisfies `ok`; its text.
    pub fn wait_text(&self, css: &str, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let text = self.text(css);
            if ok(&text) {
                return text;
            }
            assert!(
                start.elapsed() < WAIT,
                "waited {WAIT:?} for {css}: {what}; its text: {text:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Size the viewport (what a screenshot holds) to `width` x `height`
    /// CSS pixels: the window is sized, then grown by what its frame takes.
    pub fn set_viewport_size(&self, width: u32, height: u32) {
        let rect = |w: i64, h: i64| {
            self.session_call(
                "POST",
                "/window/rect",
                Some(json!({"width": w, "height": h})),
            )
        };
        let (width, height) = (i64::from(width), i64::from(height));
        rect(width, height);
        let inner = self.script("return [window.innerWidth, window.innerHeight];", json!([]));
        let (w, h) = (inner[0].as_i64().unwrap(), inner[1].as_i64().unwrap());
        rect(2 * width - w, 2 * height - h);
    }

    /// Press and release `key` where the focus is: a character, or a
    /// WebDriver key code (`"\u{E015}"` is ArrowDown; see [`keys`]).
    pub fn press(&self, key: &str) {
        self.session_call(
            "POST",
            "/actions",
            Some(
                json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
                    {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}
                ]}]}),
            ),
        );
    }

    /// Emulate a phone's screen, `width` x `height` CSS pixels (a mobile
    /// viewport: the page's `viewport` meta applies), through Chromium's
    /// DevTools command.
    pub fn emulate_phone(&self, width: u32, height: u32) {
        self.session_call(
            "POST",
            "/goog/cdp/execute",
            Some(
                json!({"cmd": "Emulation.setDeviceMetricsOverride", "params": {
                    "width": width, "height": height, "deviceScaleFactor": 2, "mobile": true
                }}),
            ),
        );
    }

    /// Emulate the system's colour scheme (`prefers-color-scheme`: "dark"
    /// or "light"), through Chromium's DevTools command.
    pub fn prefer_color_scheme(&self, scheme: &str) {
        self.session_call(
            "POST",
            "/goog/cdp/execute",
            Some(json!({"cmd": "Emulation.setEmulatedMedia", "params": {
                "features": [{"name": "prefers-color-scheme", "value": scheme}]
            }})),
        );
    }

    /// Save a PNG screenshot of the window at `path`.
    pub fn screenshot(&self, path: &Path) {
        let b64 = self.session_call("GET", "/screenshot", None);
        let png = base64_decode(b64.as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::write(path, png).unwrap();
    }

    fn wait_until(&self, what: &str, mut ok: impl FnMut() -> bool) {
        let start = Instant::now();
        while !ok() {
            assert!(start.elapsed() < WAIT, "waited {WAIT:?} for {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let bytes: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= u32::from(value(c)) << (18 - 6 * i);
        }
        let take = chunk.len() * 6 / 8;
        out.extend(n.to_be_bytes()[1..=take].iter());
    }
    out
}

/// WebDriver's codes for the keys [`Browser::press`] sends.
pub mod keys {
    pub const ENTER: &str = "\u{E007}";
    pub const ESCAPE: &str = "\u{E00C}";
    pub const HOME: &str = "\u{E011}";
    pub const END: &str = "\u{E010}";
    pub const ARROW_UP: &str = "\u{E013}";
    pub const ARROW_DOWN: &str = "\u{E015}";
}
