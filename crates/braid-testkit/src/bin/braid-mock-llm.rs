//! `braid-mock-llm --script FILE --port N`: the scriptable mock LLM as a program, for the web UI's
//! end-to-end tests and manual runs. Port 0 picks a free port; the chosen one is printed.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

use braid_testkit::{MockLlm, Script};
use clap::Parser;

/// Serves the OpenAI and Anthropic streaming APIs from a script.
#[derive(Parser)]
#[command(name = "braid-mock-llm", version)]
struct Args {
    /// The script: `{"responses": [...]}` (see braid-testkit's `Script`).
    #[arg(long)]
    script: PathBuf,
    /// The port; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let script = match Script::from_file(&args.script) {
        Ok(script) => script,
        Err(error) => {
            eprintln!("braid-mock-llm: {error}");
            return ExitCode::from(2);
        }
    };
    let responses = script.responses.len();
    let mock = match MockLlm::start_on(SocketAddr::new(args.host, args.port), script).await {
        Ok(mock) => mock,
        Err(error) => {
            eprintln!("braid-mock-llm: {error}");
            return ExitCode::from(1);
        }
    };
    // The first line is for scripts that started us with port 0: the port alone.
    println!("{}", mock.addr().port());
    println!(
        "braid-mock-llm listening on {} ({responses} scripted responses); OpenAI base URL {}, Anthropic base URL {}",
        mock.url(),
        mock.openai_base_url(),
        mock.url()
    );
    if let Err(error) = tokio::signal::ctrl_c().await {
        eprintln!("braid-mock-llm: cannot wait for Ctrl-C: {error}");
        return ExitCode::from(1);
    }
    for (i, request) in mock.requests().iter().enumerate() {
        eprintln!("request {}: {} {}", i + 1, request.method, request.path);
    }
    ExitCode::SUCCESS
}
