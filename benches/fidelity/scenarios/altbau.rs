//! `altbau`: a couple renovating a 1920s house, and the whole chat is in German — 46
//! turns written before any rule was tuned to them. Its shapes: no English at all, so
//! no English word tells a question, a change or a name; German numbers ("8.940 €",
//! "6,5 cm"), numeric dates ("14.04."), abbreviations mid-sentence ("Lindenstr.",
//! "Hr.", "Fa.", "ca.", "inkl.", "z. B."), names with letters outside ASCII (Yıldız,
//! Schäfer-Ngata, Kowalczyk), a date corrected ("Korrektur: …"), the budget raised
//! late, a detail the model made up and the person set right. Most questions ask about
//! the first third, two in other words ("gebaut" for "Baujahr", "Handwerker für den
//! Strom" for "Elektriker").

use super::{Question, Scenario, changed, fact};

pub(super) fn altbau() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "Hallo! Wir haben ein altes Haus gekauft und fangen jetzt mit der Sanierung an. Kannst du mir helfen, den Überblick zu behalten?".into(),
        // 1
        "Das Haus steht in der Lindenstr. 23 in Bamberg, Baujahr 1928, zwei Vollgeschosse und ein ausgebauter Dachboden.".into(),
        // 2
        "Unser Elektriker ist Hr. Yıldız von der Fa. Elektro Brandl, Handy 0176 2234 9981, er macht die komplette Neuverkabelung.".into(),
        // 3
        "Was muss man bei alten Stromleitungen eigentlich beachten? Sind die gefährlich?".into(),
        // 4
        "Wir haben insgesamt 85.000 € Budget, davon sind 12.000 € Zuschuss von der KfW, der Rest ist Kredit.".into(),
        // 5
        "Puh, das klingt nach viel Papierkram.".into(),
        // 6
        "Das Angebot für die Fenster (Fa. Holzmann, 14 Stück, Dreifachverglasung) liegt bei 8.940 € inkl. MwSt.".into(),
        // 7
        "Lohnt sich Dreifachverglasung bei einem so alten Haus überhaupt?".into(),
        // 8
        "Die alte Gasheizung ist von 1994 und soll raus. Die Energieberaterin, Frau Dr. Schäfer-Ngata, empfiehlt eine Wärmepumpe mit ca. 9 kW Leistung.".into(),
        // 9
        "Okay, gut zu wissen.".into(),
        // 10
        "Der Schlüsselkasten am Bauzaun hat den Code 5182, falls die Handwerker mal vor uns da sind.".into(),
        // 11
        "Wie schützt man eine Baustelle am besten gegen Diebstahl? Bei den Nachbarn wurde letzten Monat Kupfer geklaut.".into(),
        // 12
        "Das Gerüst steht ab dem 10.04. und der Dachdecker kommt am 14.04., er deckt das ganze Dach neu mit Tonziegeln.".into(),
        // 13
        "Hoffentlich regnet es dann nicht die ganze Zeit.".into(),
        // 14
        "Im Bad kommt ein neuer Estrich rein, 6,5 cm dick, und der muss ja ewig trocknen, oder?".into(),
        // 15
        "Wie lange genau? Wir wollen z. B. schon im Juni einziehen.".into(),
        // 16
        "Na toll, das wird knapp.".into(),
        // 17
        "Was ist eigentlich der Unterschied zwischen Zementestrich und Anhydritestrich?".into(),
        // 18
        "Die Fliesen fürs Bad haben wir ausgesucht: 60 × 60, Farbe Sandstein, 38,90 € pro m².".into(),
        // 19
        "Sind große Fliesen im Bad rutschig? Meine Schwiegermutter ist 81.".into(),
        // 20
        "Korrektur: der Dachdecker kommt erst am 28.04., sein Kollege ist krank geworden.".into(),
        // 21
        "Das Gerüst kostet dann natürlich zwei Wochen länger Miete, super.".into(),
        // 22
        "Von Fußbodenheizung im ganzen Haus war nie die Rede, die kommt nur ins Bad. Oben bleiben die alten Heizkörper.".into(),
        // 23
        "Reicht die Wärmepumpe dann überhaupt für die alten Heizkörper?".into(),
        // 24
        "Ah, größere Heizkörper, verstehe. Das muss ich mit ihr besprechen.".into(),
        // 25
        "Kannst du mir eine Liste machen, was wir vor dem Einzug unbedingt fertig haben müssen?".into(),
        // 26
        "Die Nachbarin links, Frau Kowalczyk, hat sich über den Lärm beschwert. Wir haben ausgemacht: Arbeiten nur Mo–Fr von 7 bis 18 Uhr.".into(),
        // 27
        "Ist das eigentlich gesetzlich geregelt, wann man auf einer Baustelle Lärm machen darf?".into(),
        // 28
        "Gut, dann halten wir uns dran.".into(),
        // 29
        "Wie finde ich heraus, ob in den alten Wänden Asbest ist?".into(),
        // 30
        "Gute Nachricht: die Bank hat aufgestockt, das Budget ist jetzt 92.000 € statt 85.000 €.".into(),
        // 31
        "Damit können wir auch die Haustür machen lassen.".into(),
        // 32
        "Was kostet eine neue Haustür ungefähr, so grob?".into(),
        // 33
        "Okay, das ist mehr als gedacht.".into(),
        // 34
        "Der Bauschuttcontainer (7 m³) kostet 540 € und wird am Freitag abgeholt.".into(),
        // 35
        "Darf man Gipskarton eigentlich in den normalen Bauschutt werfen?".into(),
        // 36
        "Ach so, gut dass ich gefragt habe.".into(),
        // 37
        "Der Maler, Hr. Albrecht, fängt am 2.06. im Erdgeschoss an, Stundensatz 52 €.".into(),
        // 38
        "Welche Wandfarbe ist für ein altes Haus mit Kalkputz am besten?".into(),
        // 39
        "Silikatfarbe, notiert.".into(),
        // 40
        "Ich bin heute echt müde, die Woche war lang.".into(),
        // 41
        "Bevor ich aufhöre, ein paar Fragen zum Stand der Dinge.".into(),
        // 42
        "Wie lange haben wir noch Zeit bis zum Einzug, wenn alles klappt?".into(),
        // 43
        "Danke dir!".into(),
        // 44
        "Was sollen wir zuerst streichen lassen, die Küche oder das Wohnzimmer?".into(),
        // 45
        "Gut, dann machen wir das so. Bis morgen!".into(),
    ];
    let facts = vec![
        // The first third (turns 0-15).
        fact(&["Baujahr", "Haus"], "1928", 1),
        fact(&["Haus", "Bamberg"], "Lindenstr. 23", 1),
        fact(&["Elektriker", "Yıldız"], "0176 2234 9981", 2),
        fact(&["Zuschuss", "KfW"], "12.000 €", 4),
        fact(&["Fenster", "Holzmann"], "8.940 €", 6),
        fact(&["Energieberaterin"], "Schäfer-Ngata", 8),
        fact(&["Wärmepumpe"], "9 kW", 8),
        fact(&["Schlüsselkasten"], "5182", 10),
        fact(&["Estrich"], "6,5 cm", 14),
        // The rest.
        fact(&["Fliesen"], "38,90 €", 18),
        changed(&["Dachdecker"], "28.04", "14.04", 20),
        fact(&["Fußbodenheizung"], "nur ins Bad", 22),
        fact(&["Nachbarin"], "Kowalczyk", 26),
        changed(&["Budget"], "92.000 €", "85.000 €", 30),
        fact(&["Bauschuttcontainer", "Container"], "540 €", 34),
        fact(&["Maler", "Albrecht"], "52 €", 37),
    ];
    let quiz = vec![
        Question {
            ask: "Wann wurde unser Haus gebaut?",
            fact: 0,
        },
        Question {
            ask: "Wie ist die Handynummer von unserem Handwerker für den Strom?",
            fact: 2,
        },
        Question {
            ask: "Wie viel Zuschuss bekommen wir von der KfW?",
            fact: 3,
        },
        Question {
            ask: "Was kosten die neuen Fenster laut Angebot?",
            fact: 4,
        },
        Question {
            ask: "Wie heißt unsere Energieberaterin?",
            fact: 5,
        },
        Question {
            ask: "Welche Leistung soll die Wärmepumpe haben?",
            fact: 6,
        },
        Question {
            ask: "Was war nochmal der Code für den Schlüsselkasten?",
            fact: 7,
        },
        Question {
            ask: "Wann kommt der Dachdecker?",
            fact: 10,
        },
        Question {
            ask: "Wie hoch ist unser Budget jetzt?",
            fact: 13,
        },
        Question {
            ask: "Was kostet der Maler pro Stunde?",
            fact: 15,
        },
    ];
    Scenario {
        name: "altbau",
        locked: "Die tragenden Wände bleiben, wo sie sind: keine Grundrissänderung",
        turns,
        facts,
        quiz,
    }
}
