//! Pictures (#39) through the binary: a PNG attached by `/image` and one by its path in
//! the message both reach the vision model (the fake answers with their hashes), the chips
//! say their cost (a guess until a reply has taught it), resume sends them again, and a
//! model without `vision` refuses with the reason while the text stays in the box; a FIFO,
//! a 200 MB file and a link out are refused before anything is read.

use super::harness::{Rig, idle};
use super::support::fake_ollama::vision_model;
use super::support::files;
use std::path::{Path, PathBuf};

/// A PNG made here (no binary fixture): its path, and the first 8 hex digits of its
/// SHA-256, which the fake's answer names.
fn png(dir: &Path, name: &str, w: u32, h: u32) -> (PathBuf, String) {
    let (path, bytes) = files::png(dir, name, w, h);
    let hash = ollm_tui::store::images::hash_of(&bytes);
    (path, hash[..8].to_string())
}

fn images_of_last_user(request: &serde_json::Value) -> usize {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["images"].as_array())
        .map_or(0, Vec::len)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_png_by_image_and_one_by_path_reach_the_vision_model_and_resume_keeps_them() {
    let rig = Rig::new().await;
    rig.server.add_model(vision_model());
    let pics = tempfile::tempdir().unwrap();
    let (first, first_hash) = png(pics.path(), "chart.png", 64, 48);
    let (second, second_hash) = png(pics.path(), "shot.png", 32, 32);
    let t = rig.connect(&["--model", "llava:7b"], 120, 40).await;

    t.say(&format!("/image {}", first.display()));
    // Before the server has counted a picture, its cost is the budget's guess.
    t.wait_for("the chip above the box", |s| {
        s.contains("chart.png 64×48 · ≈ 768 tokens (guess)") && s.contains("/image clear")
    })
    .await;
    t.say(&format!("compare it with {}", second.display()));
    let s = t
        .wait_for("the answer naming both pictures' hashes", |s| {
            s.contains(&first_hash) && s.contains(&second_hash) && idle(s)
        })
        .await;
    assert!(
        !s.contains("/image clear"),
        "the chips left with the message:\n{s}"
    );
    // Under the sent message, the chips say the cost the reply taught, no longer a guess.
    assert!(
        s.contains("shot.png 32×32 · ≈ ") && !s.contains("(guess)"),
        "the learned cost on the sent chips:\n{s}"
    );
    // Inside tmux no thumbnail is drawn and no rows are kept for one: past the blank line
    // between entries, the reply follows the chip.
    let lines: Vec<&str> = s.lines().collect();
    let chip = lines
        .iter()
        .position(|l| l.contains("shot.png 32×32"))
        .unwrap();
    assert!(
        lines.get(chip + 1).is_some_and(|l| l.trim().is_empty())
            && lines.get(chip + 2).is_some_and(|l| !l.trim().is_empty()),
        "the chip alone in tmux:\n{s}"
    );
    // The chat request (a title may be asked after it: that one carries no picture).
    let chat = rig.server.chat_requests();
    assert_eq!(
        chat.iter()
            .map(images_of_last_user)
            .collect::<Vec<_>>()
            .iter()
            .filter(|n| **n > 0)
            .collect::<Vec<_>>(),
        vec![&2]
    );
    // The path stays in the message's text.
    let log = std::fs::read_to_string(&super::harness::session_logs(rig.home())[0]).unwrap();
    assert!(
        log.contains("shot.png") && log.contains("\"images\""),
        "{log}"
    );
    t.quit().await;

    // Resumed, the picture message is still in the context: its pictures go again.
    let t = rig.connect(&["--resume"], 120, 40).await;
    t.say("and now?");
    t.wait_for("the answer after resume", |s| {
        s.contains("You said: \"and now?\"") && idle(s)
    })
    .await;
    let chat = rig.server.chat_requests();
    let last = chat
        .iter()
        .rev()
        .find(|r| r.to_string().contains("and now?"))
        .unwrap();
    let with_pictures = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["images"].as_array().is_some_and(|i| i.len() == 2))
        .count();
    assert_eq!(with_pictures, 1, "{last}");
    t.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_without_vision_refuses_the_picture_and_a_path_stays_text() {
    let rig = Rig::new().await;
    rig.server.add_model(vision_model());
    let pics = tempfile::tempdir().unwrap();
    let (path, _) = png(pics.path(), "shot.png", 16, 16);
    let t = rig.connect(&["--model", "llama3.2:3b"], 120, 40).await;
    t.say(&format!("/image {}", path.display()));
    let s = t
        .wait_for("the refusal naming the vision model", |s| {
            s.contains("cannot see pictures") && s.contains("llava:7b")
        })
        .await;
    assert!(!s.contains("16×16"), "no chip:\n{s}");
    assert!(rig.server.chat_requests().is_empty());
    // A path in a message to this model is only text: the message goes, without it.
    t.say(&format!("notes about {}", path.display()));
    t.wait_for("the reply", |s| {
        s.contains("You said: \"notes about") && idle(s)
    })
    .await;
    let chat = rig.server.chat_requests();
    assert!(chat.iter().all(|r| images_of_last_user(r) == 0));
}

/// The hostile files, through the binary: a FIFO named like a picture (opening it
/// would block the app), a 200 MB file and a link out of its folder are each refused with
/// the reason before anything is read, no chip appears, and the app still answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_a_huge_file_and_a_link_out_are_refused_before_reading() {
    let rig = Rig::new().await;
    rig.server.add_model(vision_model());
    let pics = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let fifo = pics.path().join("cam.png");
    files::mkfifo(&fifo);
    let huge = pics.path().join("huge.png");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(200_000_000)
        .unwrap();
    let (outside, _) = png(elsewhere.path(), "secret.png", 8, 8);
    let link = pics.path().join("link.png");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let t = rig.connect(&["--model", "llava:7b"], 160, 40).await;

    for (path, reason) in [
        (&fifo, "is a FIFO, not a file"),
        (&huge, "is 200.0 MB, over the 20 MB"),
        (&link, "is a link out of its folder"),
    ] {
        t.say(&format!("/image {}", path.display()));
        let s = t
            .wait_for(reason, |s| s.contains(reason) && s.contains("Not attached"))
            .await;
        assert!(!s.contains("/image clear"), "a chip appeared:\n{s}");
    }
    t.say("still there?");
    t.wait_for("the reply", |s| {
        s.contains("You said: \"still there?") && idle(s)
    })
    .await;
    let chat = rig.server.chat_requests();
    assert!(chat.iter().all(|r| images_of_last_user(r) == 0));
    t.quit().await;
}
