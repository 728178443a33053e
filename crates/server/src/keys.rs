//! The commands that make and manage who may sign in: `key create|list|revoke|set`, `token`, `user password|link`.

use std::path::Path;

use anyhow::{Context as _, Result};

use crate::cli::{KeyCommand, UserCommand};

/// `key create`, `key list`, `key revoke` and `key set`.
pub(crate) fn key(command: KeyCommand) -> Result<()> {
    match command {
        KeyCommand::List { data, name } => {
            let (cms, _) = data.open_for_a_few_rows()?;
            for key in cms.list_keys(&name)? {
                let label = if key.label.is_empty() {
                    "made with key create"
                } else {
                    &key.label
                };
                println!("{}  {}  {label}", key.public_key, key.created_at);
            }
            Ok(())
        }
        KeyCommand::Revoke { data, public_key } => {
            let (cms, _) = data.open_for_a_few_rows()?;
            cms.revoke_key(&public_key)?;
            println!("key {public_key} revoked: its tokens are refused from now on");
            Ok(())
        }
        KeyCommand::Set {
            data,
            public_key,
            content_as_array,
        } => {
            let (cms, _) = data.open_for_a_few_rows()?;
            cms.set_key_content_as_array(&public_key, content_as_array)?;
            println!(
                "key {public_key}: single content items as {}",
                if content_as_array {
                    "one-element arrays"
                } else {
                    "objects"
                }
            );
            Ok(())
        }
        KeyCommand::Create {
            data,
            name,
            roles,
            actions,
            json,
            content_as_array,
        } => {
            let (cms, _) = data.open_for_a_few_rows()?;
            let key = cms.create_key(&name, &roles, &actions)?;
            if content_as_array {
                cms.set_key_content_as_array(&key.public_key, true)?;
            }
            if json {
                println!(
                    "{}",
                    serde_json::json!({
                        "user_uuid": key.user_uuid,
                        "public_key": key.public_key,
                        "private_key": key.private_key,
                    })
                );
            } else {
                println!("user:        {name} ({})", key.user_uuid);
                println!("public key:  {}", key.public_key);
                println!("private key: {}", key.private_key);
                println!("Keep the private key safe: it is shown only now.");
            }
            Ok(())
        }
    }
}

/// `token`: a signed token from a key pair file, for a script.
pub(crate) fn token(key_file: &Path, lifetime: i64) -> Result<()> {
    let text = std::fs::read_to_string(key_file)
        .with_context(|| format!("reading the key file {}", key_file.display()))?;
    let key: serde_json::Value = serde_json::from_str(&text).context("the key file is not JSON")?;
    let field = |name: &str| {
        key[name]
            .as_str()
            .map(str::to_owned)
            .with_context(|| format!("the key file has no {name}"))
    };
    let token = copydesk_core::access::mint_token(
        &field("public_key")?,
        &field("private_key")?,
        Some(lifetime),
    )?;
    println!("{token}");
    Ok(())
}

/// `user password` and `user link`.
pub(crate) fn user(command: UserCommand) -> Result<()> {
    match command {
        UserCommand::Password { name, data } => {
            let password = read_password(&name)?;
            let (cms, _) = data.open_for_a_few_rows()?;
            cms.set_password(&name, &password)?;
            println!("{name} can now sign in with this password");
            Ok(())
        }
        UserCommand::Link { name, data, base } => {
            let (cms, _) = data.open_for_a_few_rows()?;
            let token = cms.make_sign_in_link(&name)?;
            println!("{}/#/sign-in/{token}", base.trim_end_matches('/'));
            eprintln!("The link signs {name} in once, within 15 minutes.");
            Ok(())
        }
    }
}

/// The password from standard input: without echo from a terminal (asked
/// twice), else the first line piped in.
pub(crate) fn read_password(name: &str) -> Result<String> {
    use std::io::{BufRead as _, IsTerminal as _};
    if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password(format!("New password for {name}: "))
            .context("reading the password")?;
        let again =
            rpassword::prompt_password("The same again: ").context("reading the password")?;
        anyhow::ensure!(
            first == again,
            "the two passwords differ; nothing was changed"
        );
        return Ok(first);
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("reading the password from standard input")?;
    let password = line.trim_end_matches(['\n', '\r']).to_owned();
    anyhow::ensure!(!password.is_empty(), "no password on standard input");
    Ok(password)
}
