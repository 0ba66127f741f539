//! `homelab`: setting up a home server over an evening — 44 turns written before any
//! rule was tuned to them. Its shapes: addresses and ports ("192.168.1.40", ":8096"),
//! model numbers with letters and signs ("DS920+", "BX950"), a correction given as the
//! reason the old value had to go ("the printer had already grabbed .40, so the NAS is
//! on 192.168.1.50 now"), a clock time in 24-hour form moved ("the backup at 02:30
//! clashes with the scrub, moving it to 04:00"), a name that is a user name in
//! lower case, one fact said inside a question, and questions in other words ("the
//! media server", "how long the power lasts").

use super::{Question, Scenario, changed, fact};

pub(super) fn homelab() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "Finally got my home server parts, want to set it all up tonight. Can you keep me on track?".into(),
        // 1
        "The NAS is a Synology DS920+ with four 8 TB drives.".into(),
        // 2
        "I gave it a fixed address, 192.168.1.40.".into(),
        // 3
        "Should I go SHR-1 or SHR-2 with four drives?".into(),
        // 4
        "SHR-1 then, I've got offsite backups anyway.".into(),
        // 5
        "Jellyfin is going in a container on it, on port 8096.".into(),
        // 6
        "Do I need hardware transcoding for a couple of 1080p streams?".into(),
        // 7
        "ok good, the 920+ has Quick Sync anyway.".into(),
        // 8
        "The admin account is called bartek, I disabled the default admin one.".into(),
        // 9
        "Offsite backups go to Backblaze B2, the bucket is homelab-kowalczyk-01.".into(),
        // 10
        "Hyper Backup runs every night at 02:30.".into(),
        // 11
        "Is B2 cheaper than Synology C2 for about 3 TB?".into(),
        // 12
        "Fair enough, sticking with B2.".into(),
        // 13
        "The UPS is an APC BX950 and on the pull-the-plug test it lasted 22 minutes.".into(),
        // 14
        "How do I get the NAS to shut down cleanly when the UPS battery runs low?".into(),
        // 15
        "Done, it's talking to the UPS over USB.".into(),
        // 16
        "Next is the Pi-hole. Would a Pi 3 be enough for a house of four?".into(),
        // 17
        "Cool. It's running on the old Pi 3 at 192.168.1.2.".into(),
        // 18
        "Should the router hand out the Pi-hole as the DNS server or should every device point at it?".into(),
        // 19
        "Router it is. It's a Fritz!Box 7590 so that's easy enough.".into(),
        // 20
        "Ugh, the printer had already grabbed .40, so the NAS is on 192.168.1.50 now.".into(),
        // 21
        "Do I need to change anything in Jellyfin after moving the address?".into(),
        // 22
        "Right, just the bookmarks then.".into(),
        // 23
        "What's a sensible schedule for data scrubbing?".into(),
        // 24
        "Monthly scrub set, first Sunday at 01:00, it takes hours though.".into(),
        // 25
        "The 02:30 backup clashes with the scrub, so I'm moving the backup to 04:00.".into(),
        // 26
        "Would you bother with a reverse proxy for Jellyfin if it's only at home?".into(),
        // 27
        "Yeah I'll skip it for now.".into(),
        // 28
        "My partner Ingrid wants her photos on there too, is Synology Photos any good?".into(),
        // 29
        "She'll give it a go.".into(),
        // 30
        "Her account is ingrid.h, with a 1 TB quota.".into(),
        // 31
        "How do I stop the drives spinning up all night for nothing?".into(),
        // 32
        "Hibernation after 20 minutes, done.".into(),
        // 33
        "Can Tailscale replace opening ports on the router?".into(),
        // 34
        "Tailscale it is, no ports opened then.".into(),
        // 35
        "The whole thing draws about 38 W at idle by my plug meter.".into(),
        // 36
        "Is that bad for electricity?".into(),
        // 37
        "OK, not terrible.".into(),
        // 38
        "What should I write down in case it all breaks and I've forgotten everything?".into(),
        // 39
        "Good idea, I'll make a one-page runbook.".into(),
        // 40
        "Anything else I should do on night one?".into(),
        // 41
        "I'll leave the rest for the weekend.".into(),
        // 42
        "Thanks for sticking with me.".into(),
        // 43
        "Right, bed.".into(),
    ];
    let facts = vec![
        // The first third (turns 0-14).
        fact(&["NAS", "Synology"], "DS920+", 1),
        fact(&["Jellyfin"], "8096", 5),
        fact(&["admin"], "bartek", 8),
        fact(&["bucket", "B2"], "homelab-kowalczyk-01", 9),
        fact(&["UPS", "BX950"], "22 minutes", 13),
        // The rest.
        fact(&["Pi-hole", "Pi 3"], "192.168.1.2", 17),
        fact(&["router", "Fritz"], "7590", 19),
        changed(&["NAS"], "192.168.1.50", "192.168.1.40", 20),
        changed(&["backup"], "04:00", "02:30", 25),
        fact(&["ingrid", "quota"], "1 TB", 30),
        fact(&["idle", "draws"], "38 W", 35),
    ];
    let quiz = vec![
        Question {
            ask: "Which Synology model did I buy?",
            fact: 0,
        },
        Question {
            ask: "What port is the media server on?",
            fact: 1,
        },
        Question {
            ask: "What's the admin username?",
            fact: 2,
        },
        Question {
            ask: "What's the name of my offsite bucket?",
            fact: 3,
        },
        Question {
            ask: "How long does the battery backup last?",
            fact: 4,
        },
        Question {
            ask: "What's the address of the ad blocker?",
            fact: 5,
        },
        Question {
            ask: "What's the NAS's address now?",
            fact: 7,
        },
        Question {
            ask: "When does the nightly backup run?",
            fact: 8,
        },
        Question {
            ask: "How much space does Ingrid get?",
            fact: 9,
        },
    ];
    Scenario {
        name: "homelab",
        locked: "Nothing exposed to the internet",
        turns,
        facts,
        quiz,
    }
}
