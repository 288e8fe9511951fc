//! The strict network's pieces together, as a run wires them: the real
//! `agentgate __sandbox` with `network: forward` and two forwarded ports,
//! one to the run's gateway's Unix socket (on the gateway's own port
//! number, so its base URL is unchanged inside), one to an egress proxy's.
//! Inside, curl stands for the agent CLI: its model call reaches fake-llm
//! through the gateway and is noticed; through the proxy it reaches an
//! allowed host and is refused another; straight to the host's loopback it
//! reaches nothing.

use std::path::Path;
use std::time::Duration;

use agentgate_fakellm::{FakeLlm, ServerConfig};
use agentgate_gateway::{
    EgressNotice, EgressProxy, EgressRefusal, Gateway, GatewayConfig, GatewayNotice, KeyMode,
};
use agentgate_protocol::EnforcementState;
use agentgate_tools::sandbox::{NetworkRule, PortForward};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::suite::sandbox::{sandbox, spec};

const WAIT: Duration = Duration::from_secs(20);

/// An HTTP server on the host's 127.0.0.1 that answers `hello from the
/// host` to every request.
async fn host_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match stream.read(&mut byte).await {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                let body = "hello from the host";
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    port
}

/// The port of `http://127.0.0.1:PORT/...`.
fn port_of(url: &str) -> u16 {
    let authority = url.trim_start_matches("http://").split('/').next().unwrap();
    authority.rsplit_once(':').unwrap().1.parse().unwrap()
}

/// curl for each thing the agent tries, one line each.
const AGENT: &str = r#"
base="$1"; proxy="$2"; host_port="$3"
printf 'model: '
curl -s -m 10 -o /dev/null -w '%{http_code}\n' "$base/v1/messages" \
  -H 'content-type: application/json' -H 'anthropic-version: 2023-06-01' \
  -d '{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}'
printf 'allowed: '
curl -s -m 10 --proxytunnel -x "http://127.0.0.1:$proxy" "http://localhost:$host_port/"; echo
printf 'refused: '
curl -s -m 10 --proxytunnel -x "http://127.0.0.1:$proxy" "http://127.0.0.1:$host_port/" \
  -o /dev/null -w '%{http_connect}\n'
printf 'direct: '
curl -s -m 10 "http://127.0.0.1:$host_port/" -o /dev/null -w '%{http_code}\n'
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandboxed_client_reaches_its_model_and_the_allowed_host_and_nothing_else() {
    let fake = FakeLlm::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default())
        .await
        .unwrap();
    let host_port = host_server().await;
    let dir = tempfile::tempdir().unwrap();
    let gateway_socket = dir.path().join("gateway.sock");
    let mut cfg = GatewayConfig::new(fake.url(), KeyMode::Passthrough);
    cfg.unix_socket = Some(gateway_socket.clone());
    let (gateway, mut calls) = Gateway::start(cfg).await.unwrap();
    let mut proxy = EgressProxy::start(
        &[format!("localhost:{host_port}")],
        &dir.path().join("egress.sock"),
    )
    .await
    .unwrap();
    let mut refusals = proxy.notices().unwrap();

    let gateway_port = port_of(gateway.base_url());
    // Inside, any free number does for the proxy: the host's are not there.
    let proxy_port = 3128;
    let args = [
        "-c".to_owned(),
        AGENT.to_owned(),
        "agent".to_owned(),
        gateway.base_url().to_owned(),
        proxy_port.to_string(),
        host_port.to_string(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut spec = spec(dir.path(), "/bin/sh", &args);
    spec.isolate_processes = true;
    spec.network = NetworkRule::Forward(vec![
        PortForward {
            port: gateway_port,
            socket: gateway_socket,
        },
        PortForward {
            port: proxy_port,
            socket: proxy.socket().to_path_buf(),
        },
    ]);
    let (run, report) = tokio::task::spawn_blocking(move || sandbox(&spec))
        .await
        .unwrap();
    assert_eq!(
        run.stdout,
        "model: 200\nallowed: hello from the host\nrefused: 403\ndirect: 000\n",
        "{}",
        run.all_output()
    );
    assert_eq!(
        report.network.state,
        EnforcementState::Enforced,
        "{report:?}"
    );
    assert_eq!(
        report.network.limit,
        format!("only loopback ports {gateway_port}, {proxy_port} (relayed)")
    );

    match tokio::time::timeout(WAIT, calls.recv())
        .await
        .unwrap()
        .unwrap()
    {
        GatewayNotice::Call(call) => {
            assert_eq!(call.path, "/v1/messages");
            assert_eq!(call.status, Some(200));
        }
        other => panic!("expected a call, got {other:?}"),
    }
    assert_eq!(
        tokio::time::timeout(WAIT, refusals.recv())
            .await
            .unwrap()
            .unwrap(),
        EgressNotice::Refused {
            destination: format!("127.0.0.1:{host_port}"),
            reason: EgressRefusal::HostNotAllowed,
        }
    );
    assert_eq!(proxy.summary().tunnels, 1);
    proxy.shutdown().await;
    assert_eq!(gateway.shutdown().await.model_calls, 1);
    assert!(!Path::new(&dir.path().join("gateway.sock")).exists());
}
