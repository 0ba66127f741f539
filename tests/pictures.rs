//! Pictures (#39) through the session actor and the fake Ollama over real HTTP: a file
//! attached is stored by its hash and its bytes reach the server in the message's
//! `images` (the fake's reply names their hash); a model without `vision` refuses the
//! attach and names the one that can, and gets no pictures after a switch; a resumed
//! session says which stored pictures are gone. Engine level: a fold replaces the
//! picture with the model's description, and a picture's cost is learned and replayed.
//! On disk: the stored file, the exports and a fork. The file checks themselves (a
//! 200 MB file, a FIFO, a link out) are `store::attach`'s unit tests.
#![allow(clippy::unwrap_used)]

mod support;

use base64::Engine as _;
use ollm_tui::actor::{self, ActorConfig, Ask, AttachRefused, Parts, StoreSlot};
use ollm_tui::core::engine::{Engine, EngineConfig, Request};
use ollm_tui::core::image::ImageRef;
use ollm_tui::core::prompts::Prompts;
use ollm_tui::core::record::{Header, Record, RecordBody};
use ollm_tui::llm::{OllamaBackend, OllamaOptions};
use ollm_tui::store::{MemoryStore, SessionStore};
use ollm_tui::view::{Notice, Update};
use std::sync::Arc;
use std::time::Duration;
use support::fake_ollama::{FakeOllama, vision_model};
use support::files::png;
use support::session::{Session, TOKENIZER, engine};

/// A session on `model`, resumed from `records` (none: a new one).
fn start(server: &FakeOllama, model: &str, records: Vec<Record>) -> Session {
    start_ctx(server, model, records, None)
}

/// [`start`] with the context window `ctx`.
fn start_ctx(server: &FakeOllama, model: &str, records: Vec<Record>, ctx: Option<u32>) -> Session {
    let fresh = engine(model, ctx);
    let header: Header = fresh.header("test");
    let engine = if records.is_empty() {
        fresh
    } else {
        let (replayed, report) = Engine::replay_owned(
            &header,
            records.clone(),
            EngineConfig::default(),
            TOKENIZER.clone(),
            Arc::new(Prompts::builtin()),
        );
        assert!(report.issues.is_empty(), "{:?}", report.issues);
        replayed
    };
    let backend = OllamaBackend::new(&server.url(), OllamaOptions::default()).unwrap();
    let spawned = actor::spawn(Parts {
        backend,
        summary_backend: None,
        engine: Box::new(move || engine),
        store: StoreSlot::Open(MemoryStore::with_records(header, records)),
        config: ActorConfig {
            host: server.url(),
            reconnect_after: Duration::from_secs(3600),
            ..ActorConfig::default()
        },
        model: None,
    });
    Session { spawned }
}

/// Plain turns until a fold has happened and no request message carries a picture.
fn talk_until_the_picture_folds(
    h: &mut ollm_tui::core::testing::Harness<ollm_tui::core::summarizer::doubles::Extractive>,
) {
    let mut i = 0;
    while h.engine.compressions() == 0
        || h.engine
            .prompt()
            .messages
            .iter()
            .any(|m| !m.images.is_empty())
    {
        h.turn(&format!("Tell me about topic number {i} in a few words."), |_| {
            "Here is a plain answer of some length about that topic, with a few words more to fill the window.".into()
        });
        i += 1;
        assert!(i < 200, "the picture's message never folded");
    }
}

async fn attach(s: &Session, path: std::path::PathBuf) -> Result<ImageRef, AttachRefused> {
    let (reply, rx) = tokio::sync::oneshot::channel();
    s.cmd(Ask::AttachImage { path, reply }).await;
    rx.await.unwrap()
}

fn sha_prefix(bytes: &[u8]) -> String {
    ollm_tui::store::images::hash_of(bytes)[..8].to_string()
}

#[tokio::test]
async fn an_attached_png_reaches_a_vision_model_and_its_reply_names_the_hash() {
    let server = FakeOllama::start().await;
    server.add_model(vision_model());
    let dir = tempfile::tempdir().unwrap();
    let (path, bytes) = png(dir.path(), "shot.png", 64, 48);
    let s = start(&server, "llava:7b", Vec::new());
    let image = attach(&s, path).await.unwrap();
    assert_eq!(
        (image.width, image.height, image.name.as_str()),
        (64, 48, "shot.png")
    );
    s.cmd(Request::Send {
        text: "what is in this picture?".into(),
        images: vec![image.clone()],
    })
    .await;
    s.wait_for_messages(2).await;
    let (exit, _) = s.finish().await;

    // The request carried the file's bytes, base64, on the person's message only.
    let chat = server.chat_requests();
    let messages = chat[0]["messages"].as_array().unwrap();
    let user = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    let sent = base64::engine::general_purpose::STANDARD
        .decode(user["images"][0].as_str().unwrap())
        .unwrap();
    assert_eq!(sent, bytes);
    assert!(
        messages
            .iter()
            .filter(|m| m.get("images").is_some())
            .count()
            == 1
    );

    // The fake saw those bytes: its answer names their length and hash.
    let store = exit.store.as_ref().unwrap();
    let records: Vec<RecordBody> = store.records().into_iter().map(|r| r.body).collect();
    let reply = records
        .iter()
        .find_map(|r| match r {
            RecordBody::Assistant { text, .. } => Some(text.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        reply.contains(&format!(
            "{} bytes, sha256 {}",
            bytes.len(),
            sha_prefix(&bytes)
        )),
        "{reply}"
    );
    // The record names the picture; the store holds it under its hash.
    assert!(records.iter().any(
        |r| matches!(r, RecordBody::User { images, .. } if images == std::slice::from_ref(&image))
    ));
    assert_eq!(store.load_image(&image).unwrap(), bytes);
    // The fake counts 576 tokens a picture (llava's patches): learned from its count,
    // give or take the text's estimate.
    let learned = exit.engine.status().image_tokens.unwrap();
    assert!((450..=700).contains(&learned), "learned {learned}");
}

#[tokio::test]
async fn a_model_without_vision_refuses_the_picture_and_names_one_that_can() {
    let server = FakeOllama::start().await;
    server.add_model(vision_model());
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = png(dir.path(), "shot.png", 8, 8);
    let s = start(&server, "llama3.2:3b", Vec::new());
    match attach(&s, path).await {
        Err(AttachRefused::NotVision {
            model,
            vision_models,
        }) => {
            assert_eq!(model, "llama3.2:3b");
            assert_eq!(vision_models, vec!["llava:7b".to_string()]);
            let said = ollm_tui::app::words::pictures::refused(&AttachRefused::NotVision {
                model,
                vision_models,
            });
            assert!(
                said.contains("cannot see pictures") && said.contains("/model llava:7b"),
                "{said}"
            );
        }
        other => panic!("{other:?}"),
    }
    let (exit, _) = s.finish().await;
    assert!(server.chat_requests().is_empty());
    assert!(exit.store.as_ref().unwrap().records().is_empty());
}

#[tokio::test]
async fn a_file_that_is_not_a_picture_is_refused_with_the_reason() {
    let server = FakeOllama::start().await;
    server.add_model(vision_model());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.png");
    std::fs::write(&path, "just text").unwrap();
    let s = start(&server, "llava:7b", Vec::new());
    let refused = attach(&s, path).await.unwrap_err();
    let said = ollm_tui::app::words::pictures::refused(&refused);
    assert!(said.contains("not a PNG, JPEG, WebP or GIF"), "{said}");
    s.finish().await;
}

#[tokio::test]
async fn a_resumed_session_says_which_pictures_are_gone() {
    let server = FakeOllama::start().await;
    server.add_model(vision_model());
    let gone = ImageRef {
        hash: "ab".repeat(32),
        name: "whiteboard.jpg".into(),
        width: 10,
        height: 10,
        bytes: 100,
        format: ollm_tui::core::image::ImageFormat::Jpeg,
    };
    let records = vec![Record {
        seq: 1,
        ts: chrono::Utc::now(),
        body: RecordBody::User {
            text: "what does it say?".into(),
            pinned: false,
            tokens: None,
            images: vec![gone],
        },
    }];
    let s = start(&server, "llava:7b", records);
    let (_, updates) = s.finish().await;
    let missing: Vec<&Vec<String>> = updates
        .iter()
        .filter_map(|u| match u {
            Update::Notice(Notice::ImagesMissing { names }) => Some(names),
            _ => None,
        })
        .collect();
    assert_eq!(missing, vec![&vec!["whiteboard.jpg".to_string()]]);
}

/// Engine level: a message with a picture folds like any; the picture leaves the
/// request with it, and the model's answer about it stays in the ledger, marked as the
/// model's description of the picture.
#[test]
fn a_fold_replaces_the_picture_with_the_model_s_description() {
    use ollm_tui::core::summarizer::doubles::Extractive;
    use ollm_tui::core::testing::{Harness, TurnReport};
    use ollm_tui::core::tokens::ByteEstimate;

    let mut h = Harness::new(2048, Arc::new(ByteEstimate), Extractive::new());
    let picture = ImageRef {
        hash: "cd".repeat(32),
        name: "whiteboard.png".into(),
        width: 1280,
        height: 720,
        bytes: 5000,
        format: ollm_tui::core::image::ImageFormat::Png,
    };
    let mut report = TurnReport::default();
    h.run(
        Request::Send {
            text: "What does the whiteboard say?".into(),
            images: vec![picture.clone()],
        },
        &mut report,
        &|_| {
            (
                "The whiteboard lists three tasks: migrate the billing database, rotate the TLS certificates, and archive the 2019 invoices.".into(),
                None,
            )
        },
    );
    let first = &report.sent[0];
    let with_picture: Vec<_> = first
        .messages
        .iter()
        .filter(|m| !m.images.is_empty())
        .collect();
    assert_eq!(with_picture.len(), 1);
    assert_eq!(with_picture[0].images, vec![picture.clone()]);

    talk_until_the_picture_folds(&mut h);
    assert!(
        h.engine
            .prompt()
            .messages
            .iter()
            .all(|m| m.images.is_empty())
    );
    // One ledger line, marked as the model's, names the picture and keeps what it said
    // (the ledger shortens its lines: articles go, the words that carry it stay).
    let line = picture_line_of(&h.engine, "whiteboard.png, 1280×720");
    assert!(line.starts_with("- (assistant) "), "{line}");
    assert!(line.contains("described"), "{line}");
    for words in [
        "migrate",
        "billing database",
        "TLS certificates",
        "2019 invoices",
    ] {
        assert!(line.contains(words), "{words:?} lost: {line}");
    }
}

/// Engine level: a picture's cost is learned from the server's count (what it counted
/// beyond the text's calibrated estimate), counted again in the message, and replay
/// learns the same.
#[test]
fn a_picture_s_cost_is_learned_from_the_server_s_count_and_replayed() {
    use ollm_tui::core::image::DEFAULT_IMAGE_TOKENS;
    use ollm_tui::core::summarizer::doubles::Extractive;
    use ollm_tui::core::testing::{Harness, TurnReport};
    use ollm_tui::core::tokens::ByteEstimate;

    let mut h = Harness::new(8192, Arc::new(ByteEstimate), Extractive::new());
    h.turn("hello first", |_| "Hello.".into());
    assert_eq!(h.engine.status().image_tokens, None);
    let picture = ImageRef {
        hash: "ef".repeat(32),
        name: "cat.png".into(),
        width: 640,
        height: 480,
        bytes: 900,
        format: ollm_tui::core::image::ImageFormat::Png,
    };
    let cal = h.engine.calibration();
    let mut report = TurnReport::default();
    h.run(
        Request::Send {
            text: "What animal is this?".into(),
            images: vec![picture],
        },
        &mut report,
        &|p| {
            let text = cal.apply(p.raw_estimate - DEFAULT_IMAGE_TOKENS);
            ("A cat on a sofa.".into(), Some(text + 300))
        },
    );
    assert_eq!(
        report.sent[0]
            .messages
            .iter()
            .filter(|m| !m.images.is_empty())
            .count(),
        1
    );
    assert_eq!(h.engine.status().image_tokens, Some(300));
    let text_tokens = h
        .records
        .iter()
        .find_map(|r| match &r.body {
            RecordBody::User {
                tokens: Some(t),
                images,
                ..
            } if !images.is_empty() => Some(*t),
            _ => None,
        })
        .unwrap();
    let counted = |e: &Engine| {
        e.history()
            .iter()
            .find(|m| !m.images.is_empty())
            .map(|m| m.tokens)
            .unwrap()
    };
    assert_eq!(counted(&h.engine), text_tokens + 300);

    let (replayed, report) = Engine::replay_owned(
        &h.header(),
        h.records.clone(),
        EngineConfig::default(),
        Arc::new(ByteEstimate),
        Arc::new(Prompts::builtin()),
    );
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(replayed.status().image_tokens, Some(300));
    assert_eq!(counted(&replayed), text_tokens + 300);
}

#[tokio::test]
async fn after_a_switch_to_a_model_without_vision_the_pictures_stay_out_of_its_requests() {
    let server = FakeOllama::start().await;
    server.add_model(vision_model());
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = png(dir.path(), "shot.png", 8, 8);
    let s = start(&server, "llava:7b", Vec::new());
    let image = attach(&s, path).await.unwrap();
    s.cmd(Request::Send {
        text: "look".into(),
        images: vec![image],
    })
    .await;
    s.wait_for_messages(2).await;
    s.cmd(ollm_tui::actor::Command::SetModel {
        name: "llama3.2:3b".into(),
    })
    .await;
    s.say("and without it?").await;
    s.wait_for_messages(4).await;
    s.finish().await;
    let chat = server.chat_requests();
    let last = chat
        .iter()
        .rev()
        .find(|r| r.to_string().contains("and without it?"))
        .unwrap();
    assert_eq!(last["model"], "llama3.2:3b");
    assert!(
        !last.to_string().contains("\"images\""),
        "a model without vision got pictures: {last}"
    );
}

/// A session on disk with a picture: its file is private beside the log, the exports
/// carry it (Markdown links a copy beside the export, JSON names the hash), and so does a
/// fork.
#[test]
fn a_stored_picture_is_private_and_the_exports_carry_it() {
    use ollm_tui::store::export::{Format, write_export};
    use ollm_tui::store::{DataDir, FileStore};
    use std::os::unix::fs::PermissionsExt;

    let home = tempfile::tempdir().unwrap();
    let dir = DataDir::new(home.path()).unwrap();
    let pics = tempfile::tempdir().unwrap();
    let (path, bytes) = png(pics.path(), "diagram.png", 20, 10);
    let ready = ollm_tui::store::attach::prepare(&path).unwrap();
    assert_eq!(ready.bytes, bytes);
    let header = engine("llava:7b", None).header("test");
    let id = header.session_id.clone();
    let mut store = FileStore::create(&dir, header).unwrap();
    store.save_image(&ready.image, &ready.bytes).unwrap();
    store
        .append(&Record {
            seq: 1,
            ts: chrono::Utc::now(),
            body: RecordBody::User {
                text: "what does the diagram show?".into(),
                pinned: false,
                tokens: None,
                images: vec![ready.image.clone()],
            },
        })
        .unwrap();
    store.sync().unwrap();
    let kept = dir.images_dir(&id).join(ready.image.file_name());
    assert_eq!(std::fs::read(&kept).unwrap(), bytes);
    assert_eq!(
        std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777,
        0o600
    );

    let md_path =
        write_export(&dir, &id, &Format::Markdown(ollm_tui::app::words::MARKDOWN)).unwrap();
    let md = std::fs::read_to_string(&md_path).unwrap();
    let link = format!("![diagram.png]({id}.images/{})", ready.image.file_name());
    assert!(md.contains(&link), "{md}");
    let copy = md_path
        .parent()
        .unwrap()
        .join(format!("{id}.images"))
        .join(ready.image.file_name());
    assert_eq!(std::fs::read(copy).unwrap(), bytes);

    let json_path = write_export(&dir, &id, &Format::Json).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json_path).unwrap()).unwrap();
    let part = &json["messages"][0]["parts"][1];
    assert_eq!(part["type"], "image");
    assert_eq!(part["sha256"], ready.image.hash.as_str());
    assert_eq!(part["name"], "diagram.png");

    // A fork at the message has its own copy.
    let forked = ollm_tui::store::manage::fork(&dir, &id, 1).unwrap();
    let copied = dir.images_dir(&forked).join(ready.image.file_name());
    assert_eq!(std::fs::read(copied).unwrap(), bytes);
}

/// `ollm-tui export ID -o FILE`: the Markdown links each picture to a copy in
/// `FILE`'s folder (`chat.md` → `chat.images/`, 0700, files 0600), and names one whose
/// stored file is gone instead of failing; printed, it links the stored files; JSON
/// carries both hashes.
#[test]
fn the_markdown_export_copies_pictures_beside_it_and_names_a_missing_one() {
    use ollm_tui::store::{DataDir, FileStore};
    use std::os::unix::fs::PermissionsExt;

    let home = tempfile::tempdir().unwrap();
    let dir = DataDir::new(home.path()).unwrap();
    let pics = tempfile::tempdir().unwrap();
    let kept =
        ollm_tui::store::attach::prepare(&png(pics.path(), "diagram.png", 20, 10).0).unwrap();
    let gone = ollm_tui::store::attach::prepare(&png(pics.path(), "gone.png", 7, 5).0).unwrap();
    let header = engine("llava:7b", None).header("test");
    let id = header.session_id.clone();
    let mut store = FileStore::create(&dir, header).unwrap();
    store.save_image(&kept.image, &kept.bytes).unwrap();
    store.save_image(&gone.image, &gone.bytes).unwrap();
    for (seq, images) in [
        (1, vec![kept.image.clone()]),
        (2, vec![gone.image.clone(), kept.image.clone()]),
    ] {
        store
            .append(&Record {
                seq,
                ts: chrono::Utc::now(),
                body: RecordBody::User {
                    text: format!("message {seq}"),
                    pinned: false,
                    tokens: None,
                    images,
                },
            })
            .unwrap();
    }
    store.sync().unwrap();
    drop(store);
    std::fs::remove_file(dir.images_dir(&id).join(gone.image.file_name())).unwrap();

    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ollm-tui"))
            .args(args)
            .env("OLLM_HOME", home.path())
            .env_remove("OLLAMA_HOST")
            .output()
            .unwrap()
    };
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("chat.md");
    let o = run(&["export", &id, "-o", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("1 picture of this session is missing"),
        "{err}"
    );
    let md = std::fs::read_to_string(&file).unwrap();
    let link = format!("![diagram.png](chat.images/{})", kept.image.file_name());
    assert_eq!(md.matches(&link).count(), 2, "{md}");
    assert!(
        md.contains("gone.png (7×5): its file is missing") && !md.contains(&gone.image.hash),
        "{md}"
    );
    let folder = out.path().join("chat.images");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&folder), 0o700);
    let copies: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(copies, vec![folder.join(kept.image.file_name())]);
    assert_eq!(std::fs::read(&copies[0]).unwrap(), kept.bytes);
    assert_eq!(mode(&copies[0]), 0o600);

    // Printed, there is no folder beside it: the links name the files where they are kept.
    let o = run(&["export", &id]);
    let printed = String::from_utf8_lossy(&o.stdout);
    let stored = dir.images_dir(&id).join(kept.image.file_name());
    assert!(
        printed.contains(&format!("![diagram.png]({})", stored.display()))
            || printed.contains(&format!("![diagram.png](<{}>)", stored.display())),
        "{printed}"
    );
    assert!(
        printed.contains("gone.png (7×5): its file is missing"),
        "{printed}"
    );

    // JSON names every picture by its hash, the missing one too.
    let o = run(&["export", &id, "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let hashes: Vec<&str> = json["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .filter(|p| p["type"] == "image")
        .map(|p| p["sha256"].as_str().unwrap())
        .collect();
    assert_eq!(
        hashes,
        vec![&*kept.image.hash, &*gone.image.hash, &*kept.image.hash]
    );
}

/// A message with a picture whose reply never came (the request failed), talked past
/// until it folds, with `describe` as the vision model's answer when asked to describe
/// it (`None`: it cannot see pictures, or the request fails).
fn fold_an_unanswered_picture(
    describe: Option<fn(&str) -> String>,
) -> (
    ollm_tui::core::testing::Harness<ollm_tui::core::summarizer::doubles::Extractive>,
    ImageRef,
) {
    use ollm_tui::core::engine::{Effect, Input};
    use ollm_tui::core::summarizer::doubles::Extractive;
    use ollm_tui::core::testing::{Harness, TurnReport};
    use ollm_tui::core::tokens::ByteEstimate;

    let mut h = Harness::new(2048, Arc::new(ByteEstimate), Extractive::new());
    h.describe = describe;
    let picture = ImageRef {
        hash: "ef".repeat(32),
        name: "rack.jpg".into(),
        width: 800,
        height: 600,
        bytes: 4000,
        format: ollm_tui::core::image::ImageFormat::Jpeg,
    };
    let fx = h.engine.handle(
        Request::Send {
            text: "Which cable is loose in this photo?".into(),
            images: vec![picture.clone()],
        },
        h.clock.tick(),
    );
    assert!(fx.iter().any(|e| matches!(e, Effect::Chat(_))));
    let mut report = TurnReport::default();
    let unsent: Vec<Effect> = fx
        .into_iter()
        .filter(|e| !matches!(e, Effect::Chat(_)))
        .collect();
    h.execute(unsent, &mut report, &|_| unreachable!("no chat request"));
    // The request failed: no reply about the picture.
    h.run(Input::NoReply, &mut report, &|_| {
        unreachable!("no chat request")
    });
    talk_until_the_picture_folds(&mut h);
    (h, picture)
}

/// How the unanswered picture of [`fold_an_unanswered_picture`] is named in its line.
const RACK: &str = "rack.jpg, 800×600";

/// The context's line for the folded picture named `picture` ("rack.jpg, 800×600"; the
/// ledger's, under the summaries).
fn picture_line_of(engine: &Engine, picture: &str) -> String {
    let prompt = engine.prompt();
    let context: String = prompt
        .messages
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    context
        .lines()
        .find(|l| l.contains(picture))
        .unwrap_or_else(|| panic!("no line for the picture:\n{context}"))
        .to_string()
}

/// Engine level: a picture folded before the model answered about it is described by the
/// model when asked, once, between turns; the line becomes that description, marked as the
/// model's, and replay of the log rebuilds it.
#[test]
fn a_picture_folded_unanswered_is_described_when_asked_and_replay_keeps_it() {
    let (mut h, _) = fold_an_unanswered_picture(Some(|name| {
        format!(
            "The photo {name} shows a server rack; the orange patch cable in port 12 hangs loose.\n\nMore."
        )
    }));
    assert_eq!(h.described.len(), 1, "{:?}", h.described);
    assert_eq!(h.described[0].1, "rack.jpg");
    let line = picture_line_of(&h.engine, RACK);
    assert!(line.starts_with("- (assistant) "), "{line}");
    assert!(line.contains("described"), "{line}");
    for words in ["orange patch cable", "port 12"] {
        assert!(line.contains(words), "{words:?} lost: {line}");
    }
    assert!(!line.contains("More"), "the first paragraph only: {line}");
    // Asked once: more turns ask nothing again.
    h.turn("And one more thing, briefly.", |_| "Sure, briefly.".into());
    assert_eq!(h.described.len(), 1);
    // The log holds the description: replay rebuilds the same line.
    assert!(
        h.records
            .iter()
            .any(|r| r.body.kind() == "picture_described")
    );
    let (replayed, report) = Engine::replay_owned(
        &h.header(),
        h.records.clone(),
        EngineConfig::default(),
        Arc::new(ollm_tui::core::tokens::ByteEstimate),
        Arc::new(Prompts::builtin()),
    );
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(
        picture_line_of(&replayed, RACK),
        picture_line_of(&h.engine, RACK)
    );
}

/// Engine level: when no description comes (the model cannot see pictures, or the request
/// failed), the line naming the picture stays, and it is not asked again.
#[test]
fn a_picture_folded_unanswered_keeps_a_line_naming_it_when_no_description_comes() {
    let (mut h, _) = fold_an_unanswered_picture(None);
    assert_eq!(h.described.len(), 1);
    let line = picture_line_of(&h.engine, RACK);
    assert!(line.contains("rack.jpg, 800×600"), "{line}");
    // (The ledger shortens its lines: "the" goes.)
    assert!(line.contains("before model described it"), "{line}");
    h.turn("And one more thing, briefly.", |_| "Sure, briefly.".into());
    assert_eq!(h.described.len(), 1, "asked once");
    assert!(
        h.records
            .iter()
            .all(|r| r.body.kind() != "picture_described")
    );
}

/// A message with a picture (`diagram.png`) answered, then talked past until it folds,
/// with a model that sees pictures or not; the server counts the picture at about
/// `picture_tokens`.
fn fold_a_picture(
    vision: bool,
    picture_tokens: u32,
) -> (
    ollm_tui::core::testing::Harness<ollm_tui::core::summarizer::doubles::Extractive>,
    ImageRef,
) {
    use ollm_tui::core::engine::Input;
    use ollm_tui::core::summarizer::doubles::Extractive;
    use ollm_tui::core::testing::{Harness, TurnReport};
    use ollm_tui::core::tokens::ByteEstimate;

    let mut h = Harness::new(2048, Arc::new(ByteEstimate), Extractive::new());
    let mut report = TurnReport::default();
    h.run(
        Input::ModelInfo {
            context_length: None,
            parameter_size: None,
            server_ctx: None,
            vision,
        },
        &mut report,
        &|_| unreachable!("no chat request"),
    );
    let picture = ImageRef {
        hash: "ab".repeat(32),
        name: "diagram.png".into(),
        width: 640,
        height: 480,
        bytes: 3000,
        format: ollm_tui::core::image::ImageFormat::Png,
    };
    h.run(
        Request::Send {
            text: "Here is the deployment diagram.".into(),
            images: vec![picture.clone()],
        },
        &mut report,
        &|p| {
            (
                format!("It shows three services. {}", "More. ".repeat(3)),
                // The estimate counts the default for the picture; the server its own.
                Some(p.estimate - ollm_tui::core::image::DEFAULT_IMAGE_TOKENS + picture_tokens),
            )
        },
    );
    talk_until_the_picture_folds(&mut h);
    (h, picture)
}

fn pictures_of_last_user(prompt: &ollm_tui::core::engine::ChatPrompt) -> Vec<ImageRef> {
    prompt
        .messages
        .iter()
        .rev()
        .find(|m| m.role == ollm_tui::core::engine::PromptRole::User)
        .map(|m| m.images.clone())
        .unwrap_or_default()
}

/// Engine level: asked about ("the diagram", or by its file name), a folded picture goes
/// again on the message asking, for that turn only, said in the transcript; the reply's
/// count (which holds it) teaches no cost.
#[test]
fn a_folded_picture_asked_about_comes_back_for_that_turn() {
    use ollm_tui::core::events::EngineEvent;

    let (mut h, picture) = fold_a_picture(true, 300);
    let report = h.turn("What did the diagram show again?", |_| {
        "Three services.".into()
    });
    assert_eq!(
        pictures_of_last_user(&report.sent[0]),
        vec![picture.clone()]
    );
    assert_eq!(report.sent[0].pictures_back, vec![picture.clone()]);
    assert!(
        report.events.iter().any(|e| matches!(
            e,
            EngineEvent::PicturesRecalled { names } if names == &["diagram.png".to_string()]
        )),
        "{:?}",
        report.events
    );
    let reply = h
        .records
        .iter()
        .rev()
        .find_map(|r| match &r.body {
            RecordBody::Assistant {
                prompt_estimate, ..
            } => Some(*prompt_estimate),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        reply, None,
        "a count with a picture brought back teaches nothing"
    );
    // The next turn, not about it, goes without it.
    let report = h.turn("Thanks, and what is a load balancer?", |_| {
        "A router.".into()
    });
    assert!(pictures_of_last_user(&report.sent[0]).is_empty());
    // By its file name too.
    let report = h.turn("Look at diagram.png once more, please.", |_| "Sure.".into());
    assert_eq!(pictures_of_last_user(&report.sent[0]), vec![picture]);
}

/// Engine level: a model that cannot see pictures gets none back, however it is asked.
#[test]
fn a_folded_picture_stays_out_for_a_model_without_vision() {
    let (mut h, _) = fold_a_picture(false, 300);
    let report = h.turn("What did the diagram show again?", |_| {
        "Three services.".into()
    });
    assert!(pictures_of_last_user(&report.sent[0]).is_empty());
    assert!(report.sent[0].pictures_back.is_empty());
}

/// Through the actor and the fake: once the picture's message is folded, a message asking
/// about "the screenshot" carries the picture's bytes again, on itself; the folded message
/// does not.
#[tokio::test]
async fn asked_about_after_a_fold_the_picture_s_bytes_reach_the_server_again() {
    let server = FakeOllama::start().await;
    server.add_model(vision_model());
    let dir = tempfile::tempdir().unwrap();
    let (path, bytes) = png(dir.path(), "error.png", 40, 30);
    // Long answers in a small window: a fold has something to fold.
    server.set_reply_words(120);
    let s = start_ctx(&server, "llava:7b", Vec::new(), Some(4096));
    let image = attach(&s, path).await.unwrap();
    s.cmd(Request::Send {
        text: "here is the error dialog".into(),
        images: vec![image],
    })
    .await;
    s.wait_for_messages(2).await;
    // The newest 8 messages are kept whole by a fold: the picture's must be older.
    for (i, n) in [(1, 4), (2, 6), (3, 8), (4, 10), (5, 12)] {
        s.cmd(Request::Send {
            text: format!("unrelated question number {i} about the build"),
            images: Vec::new(),
        })
        .await;
        s.wait_for_messages(n).await;
    }
    s.cmd(Request::Compress { focus: None }).await;
    s.cmd(Request::Send {
        text: "what did the screenshot say again?".into(),
        images: Vec::new(),
    })
    .await;
    s.wait_for_messages(14).await;
    let (exit, updates) = s.finish().await;
    assert!(
        exit.engine.compressions() > 0,
        "nothing was folded: {:?}",
        updates
            .iter()
            .map(|u| format!("{u:?}"))
            .filter(|u| u.contains("ompress") || u.contains("Notice"))
            .collect::<Vec<_>>()
    );

    let chat = server.chat_requests();
    let asking = chat
        .iter()
        .rev()
        .find(|r| r.to_string().contains("what did the screenshot say again?"))
        .unwrap();
    let messages = asking["messages"].as_array().unwrap();
    assert!(
        !messages
            .iter()
            .any(|m| m["content"] == "here is the error dialog"),
        "the picture's message is folded"
    );
    let with_images: Vec<&serde_json::Value> = messages
        .iter()
        .filter(|m| m.get("images").is_some())
        .collect();
    assert_eq!(with_images.len(), 1, "{asking}");
    assert_eq!(
        with_images[0]["content"],
        "what did the screenshot say again?"
    );
    let sent = base64::engine::general_purpose::STANDARD
        .decode(with_images[0]["images"][0].as_str().unwrap())
        .unwrap();
    assert_eq!(sent, bytes);
    // The fake answered from the bytes, and the transcript said the picture came back.
    let reply = exit
        .engine
        .history()
        .iter()
        .rev()
        .find(|m| m.role == ollm_tui::core::message::Role::Assistant)
        .map(|m| m.text.clone())
        .unwrap();
    assert!(reply.contains(&sha_prefix(&bytes)), "{reply}");
    assert!(
        updates
            .iter()
            .any(|u| format!("{u:?}").contains("PicturesRecalled")),
        "the transcript says the picture came back"
    );
}

/// A server that says one picture costs more than the whole window (a vision model that
/// tiles a large picture, or a garbled count): the next turn still ends — blocked, with
/// what it needs — and every message stays in the log. Before, the emergency
/// step clipped the picture's message again and again (a clip cannot shrink a picture)
/// and memory ran out.
#[test]
fn a_picture_that_costs_more_than_the_window_ends_the_turn_instead_of_clipping_forever() {
    use ollm_tui::core::image::DEFAULT_IMAGE_TOKENS;
    use ollm_tui::core::summarizer::doubles::Extractive;
    use ollm_tui::core::testing::{Harness, TurnReport};
    use ollm_tui::core::tokens::ByteEstimate;

    let mut h = Harness::new(2048, Arc::new(ByteEstimate), Extractive::new());
    h.turn("hello first", |_| "Hello.".into());
    let picture = ImageRef {
        hash: "ab".repeat(32),
        name: "scan.png".into(),
        width: 1344,
        height: 1344,
        bytes: 90_000,
        format: ollm_tui::core::image::ImageFormat::Png,
    };
    let cal = h.engine.calibration();
    let mut report = TurnReport::default();
    h.run(
        Request::Send {
            text: "What does this scan say?".into(),
            images: vec![picture],
        },
        &mut report,
        &|p| {
            let text = cal.apply(p.raw_estimate.saturating_sub(DEFAULT_IMAGE_TOKENS));
            ("It is a page of a contract.".into(), Some(text + 3000))
        },
    );
    assert_eq!(h.engine.status().image_tokens, Some(3000));
    let report = h.turn("and what is its date?", |_| "No date.".into());
    // The picture's exchange is the last one, which is never folded: the window cannot
    // hold it, and the turn says so with what it needs (the screen offers `/ctx`).
    let blocked = report.blocked.expect("neither sent nor blocked");
    assert!(blocked.needed > 3000 && blocked.ctx == 2048, "{blocked:?}");
    let clips = h
        .records
        .iter()
        .filter(|r| matches!(r.body, RecordBody::Clip { .. }))
        .count();
    assert!(clips <= 1, "{clips} clips of one message");
    for said in [
        "hello first",
        "What does this scan say?",
        "and what is its date?",
    ] {
        assert!(
            h.engine.history().iter().any(|m| m.text == said),
            "{said:?} lost"
        );
    }
}
