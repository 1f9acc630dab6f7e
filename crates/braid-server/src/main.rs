//! `braid`: the Braid server and operator commands.
#![deny(unsafe_code)]

mod message_cmd;

use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The process's allocator: under load, glibc's malloc took a fifth of the server's CPU (see
/// the workspace manifest).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Braid: a context engine and server for LLM agents.
#[derive(Parser)]
#[command(name = "braid", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start the HTTP + SSE server and web UI.
    Serve(Box<braid_server::ServeArgs>),
    /// Operate on stored message JSON.
    #[command(subcommand)]
    Message(MessageCommand),
    /// MCP client commands.
    #[command(subcommand, hide = true)]
    Mcp(McpCommand),
}

#[derive(Subcommand)]
enum McpCommand {
    /// Be the client under test of the official MCP conformance suite: run the scenario named
    /// by `MCP_CONFORMANCE_SCENARIO` against the test server at `url`.
    Conformance {
        /// The client ID metadata document URL to offer when the authorization server
        /// supports them (by default the one the suite's scenarios serve).
        #[arg(long, default_value = braid_mcp::conformance::SUITE_CLIENT_METADATA_URL)]
        client_metadata_url: String,
        /// The test server's URL (the suite appends it).
        url: String,
    },
}

#[derive(Subcommand)]
enum MessageCommand {
    /// Read one message or a JSON array of messages (any supported schema version) on stdin and
    /// print them in the current version on stdout.
    Migrate,
    /// Read messages on stdin and print every problem, one a line as `path: problem`; exit 1
    /// when there is any.
    Validate,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none())
        .init();
    match cli.command {
        Command::Serve(args) => match braid_server::serve::run_blocking(*args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e @ braid_server::serve::ServeError::Runtime(_)) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
            Err(e) => {
                tracing::error!(error = %e, "braid serve failed");
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        },
        Command::Mcp(McpCommand::Conformance {
            client_metadata_url,
            url,
        }) => {
            let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
            let context = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
                Err(_) => None,
                Ok(text) => match serde_json::from_str(&text) {
                    Ok(value) => Some(value),
                    Err(e) => {
                        eprintln!("error: MCP_CONFORMANCE_CONTEXT is not JSON: {e}");
                        return ExitCode::from(2);
                    }
                },
            };
            let input = braid_mcp::conformance::ScenarioInput {
                scenario: scenario.clone(),
                context,
                client_metadata_url: Some(client_metadata_url),
                protocol_version: std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").ok(),
            };
            match braid_mcp::conformance::run_blocking(&input, &url) {
                Ok(report) => {
                    tracing::info!(scenario = %scenario, tools = ?report.tools, results = ?report.results, "conformance scenario done");
                    ExitCode::SUCCESS
                }
                Err(e @ braid_mcp::conformance::BlockingRunError::Runtime(_)) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
                Err(e) => {
                    eprintln!("error: scenario `{scenario}`: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Command::Message(cmd) => {
            let mut input = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut input) {
                eprintln!("error: cannot read standard input: {e}");
                return ExitCode::from(2);
            }
            let outcome = match cmd {
                MessageCommand::Migrate => message_cmd::migrate(&input),
                MessageCommand::Validate => message_cmd::validate(&input),
            };
            let mut stdout = std::io::stdout().lock();
            if !outcome.stdout.is_empty() {
                let _ = writeln!(stdout, "{}", outcome.stdout);
            }
            if !outcome.stderr.is_empty() {
                eprintln!("{}", outcome.stderr);
            }
            ExitCode::from(outcome.code)
        }
    }
}
