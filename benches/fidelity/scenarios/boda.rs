//! `boda`: a couple planning their wedding, and the whole chat is in Spanish — 42 turns
//! written before any rule was tuned to them, in a language the ledger has no words for.
//! Its shapes: questions opened with "¿", dates and months in Spanish ("el 13 de
//! septiembre"), amounts as Spain writes them ("4.250 €", "62,50 €"), abbreviations
//! mid-sentence ("Avda.", "Sra.", "aprox.", "p. ej."), names with accents and two
//! surnames (Begoña Ruiz-Larrañaga, Íñigo), the guest count corrected ("perdona, me
//! equivoqué"), the menu price raised, the bus time moved. Most questions ask about the
//! first third, two in other words ("¿cuánta gente viene?" for "invitados").

use super::{Question, Scenario, changed, fact};

pub(super) fn boda() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "¡Hola! Nos casamos en septiembre y estoy un poco agobiada con la organización. ¿Me ayudas a llevar la cuenta de todo?".into(),
        // 1
        "La boda es el 13 de septiembre en la finca Los Almendros, en las afueras de Ronda, y la ceremonia empieza a las 18:30.".into(),
        // 2
        "Vamos a ser 110 invitados, más o menos la mitad de cada familia.".into(),
        // 3
        "¿Qué se suele hacer con los niños en una boda? Hay como diez.".into(),
        // 4
        "El catering es de Sabores del Sur y el menú cuesta 62,50 € por persona, bebida incluida.".into(),
        // 5
        "Me parece caro, pero la prueba de menú fue espectacular.".into(),
        // 6
        "La coordinadora de la finca se llama Begoña Ruiz-Larrañaga y su móvil es 655 214 903.".into(),
        // 7
        "¿Es normal que la finca pida una fianza? Nos piden 1.500 € por si hay daños.".into(),
        // 8
        "Vale, entonces la pagamos y listo.".into(),
        // 9
        "El fotógrafo es Íñigo, un amigo de mi hermano, y nos cobra 1.200 € por todo el día con álbum.".into(),
        // 10
        "¿Cuántas horas de fotos se suelen contratar?".into(),
        // 11
        "El autobús para los invitados sale de la Avda. de Málaga 42 a las 17:15 y vuelve a las 2 de la mañana.".into(),
        // 12
        "Espero que nadie se quede tirado.".into(),
        // 13
        "El presupuesto total que tenemos es de 18.000 €, y mis padres ponen 5.000 € de eso.".into(),
        // 14
        "¿Cómo se reparte normalmente el gasto entre las dos familias?".into(),
        // 15
        "Ya, cada familia es un mundo.".into(),
        // 16
        "La floristería es Flores Amapola, en la calle Real, y el ramo cuesta aprox. 180 €.".into(),
        // 17
        "¿Qué flores aguantan bien el calor de septiembre?".into(),
        // 18
        "Perdona, me equivoqué: somos 120 invitados, no 110, se me olvidaron los primos de Jaén.".into(),
        // 19
        "Madre mía, más sillas.".into(),
        // 20
        "El DJ se llama Toni y toca desde la cena hasta las 3, cobra 650 €.".into(),
        // 21
        "¿Qué canción ponemos para la entrada? No queremos la típica marcha nupcial.".into(),
        // 22
        "Me gusta la idea de algo de Rosalía, lo pensamos.".into(),
        // 23
        "Nunca dije que hubiera barra libre toda la noche: la barra libre es solo de 4 horas, hasta la 1.".into(),
        // 24
        "¿Cuánto alcohol se calcula por persona en una boda así?".into(),
        // 25
        "Uf, eso es mucho gin-tonic.".into(),
        // 26
        "La Sra. Ortega, la vecina de mis padres, nos hace las invitaciones a mano, 2,40 € cada una.".into(),
        // 27
        "¿Cuándo se suelen mandar las invitaciones?".into(),
        // 28
        "Vale, las mandamos en junio entonces.".into(),
        // 29
        "Nos han subido el menú: ahora son 68 € por persona en vez de 62,50 €.".into(),
        // 30
        "Qué rabia, pero bueno.".into(),
        // 31
        "El autobús al final sale a las 17:45, que la ceremonia se retrasa un poco.".into(),
        // 32
        "¿Hace falta contratar un seguro para la boda?".into(),
        // 33
        "No lo había pensado, lo miro.".into(),
        // 34
        "La luna de miel es en Japón, salimos el 16 de septiembre desde Madrid.".into(),
        // 35
        "¿Qué es imprescindible ver en Kioto en cuatro días?".into(),
        // 36
        "Qué ganas, de verdad.".into(),
        // 37
        "Estoy muerta, hoy he hecho mil llamadas.".into(),
        // 38
        "Antes de irme, unas preguntas rápidas para apuntarlo todo.".into(),
        // 39
        "¿Qué le regalamos a los padrinos?".into(),
        // 40
        "Gracias, de verdad, me has salvado la tarde.".into(),
        // 41
        "¡Hasta mañana!".into(),
    ];
    let facts = vec![
        // The first third (turns 0-13).
        fact(&["boda", "finca"], "Los Almendros", 1),
        fact(&["ceremonia"], "18:30", 1),
        fact(&["coordinadora", "Begoña"], "655 214 903", 6),
        fact(&["fianza"], "1.500 €", 7),
        fact(&["fotógrafo", "Íñigo"], "1.200 €", 9),
        fact(&["autobús", "Avda"], "Avda. de Málaga 42", 11),
        fact(&["presupuesto"], "18.000 €", 13),
        fact(&["padres"], "5.000 €", 13),
        // The rest.
        fact(&["ramo", "Flores Amapola"], "180 €", 16),
        changed(&["invitados"], "120", "110", 18),
        fact(&["DJ", "Toni"], "650 €", 20),
        fact(&["barra libre"], "4 horas", 23),
        fact(&["invitaciones", "Ortega"], "2,40 €", 26),
        changed(&["menú"], "68 €", "62,50 €", 29),
        changed(&["autobús"], "17:45", "17:15", 31),
        fact(&["luna de miel"], "Japón", 34),
    ];
    let quiz = vec![
        Question {
            ask: "¿Cómo se llama la finca donde nos casamos?",
            fact: 0,
        },
        Question {
            ask: "¿A qué hora empieza la ceremonia?",
            fact: 1,
        },
        Question {
            ask: "¿Cuál es el móvil de la coordinadora de la finca?",
            fact: 2,
        },
        Question {
            ask: "¿Cuánto es la fianza de la finca?",
            fact: 3,
        },
        Question {
            ask: "¿Cuánto nos cobra el fotógrafo?",
            fact: 4,
        },
        Question {
            ask: "¿Cuánto dinero tenemos en total para la boda?",
            fact: 6,
        },
        Question {
            ask: "¿Cuánta gente viene a la boda?",
            fact: 9,
        },
        Question {
            ask: "¿Cuánto cuesta el menú por persona ahora?",
            fact: 13,
        },
        Question {
            ask: "¿A qué hora sale el autobús?",
            fact: 14,
        },
    ];
    Scenario {
        name: "boda",
        locked: "Nada de discursos largos en el banquete: cinco minutos como mucho",
        turns,
        facts,
        quiz,
    }
}
