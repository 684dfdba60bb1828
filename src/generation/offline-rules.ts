// Keyword rules of the offline generator (ruling R25). Plain data, read top to bottom: the
// first category in RULES wins a tie, so the list is ordered by how dangerous a miss would be.
//
// Evidence arrives in many languages, so each term lists the common words for it in English,
// German, French, Spanish, Portuguese and Italian (with their regional variants), and the most
// common ones in Dutch and Polish. Terms are matched against the evidence folded by
// foldForMatching (lower case, accents removed, ß as ss, ł as l): a stem is written without
// accents ("electri" finds "électrique" and "eléctrico"). A term's tag stays English, so a
// report's tags mean the same whatever language the evidence was in.
//
// The words are chosen by domain, not by example: what names each category's things, what
// symptoms point to it without naming the thing, and what signals danger to people. A term's
// weight says how much it tells (see `term`, `place`, `symptom`, `appliance`).
import type { ReportResult } from './report-generator.ts';

type Category = ReportResult['category'];

export interface Term {
  /** The tag the term contributes. */
  readonly tag: string;
  readonly pattern: RegExp;
  /**
   * What the term counts towards its category: 1 by default (`term`, `compound`), 0.5 for a place
   * or substance (`place`), 0.75 for a symptom (`symptom`), 1.5 for a machine (`appliance`).
   */
  readonly weight: number;
  /** A symptom a sentence can deny ("no leak", "keine Risse"): then it counts nothing (NEGATION_BEFORE). */
  readonly deniable?: boolean;
}

/** `stem` matches at a word start and lets inflections through ("leak" finds "leaking"). */
function term(tag: string, stem: string = tag): Term {
  return { tag, pattern: new RegExp(`\\b(?:${stem})`, 'i'), weight: 1 };
}

/**
 * A place or substance (a wall, a ceiling, water): where something happened, not what. It
 * counts half, so "mould on the wall" is cleaning and "water heater" is an appliance.
 */
function place(tag: string, stem: string): Term {
  return { ...term(tag, stem), weight: 0.5 };
}

/**
 * A symptom (leaking, dripping, a smell): it counts three quarters, so the thing that has it
 * wins ("the dishwasher leaks" is an appliance, "a leak" alone is plumbing).
 */
function symptom(tag: string, stem: string): Term {
  return { ...term(tag, stem), weight: 0.75, deniable: true };
}

/** A machine by name (an appliance, a lift): it counts one and a half (the thing outweighs its symptoms and its parts). */
function appliance(tag: string, stem: string): Term {
  return { ...term(tag, stem), weight: 1.5 };
}

/**
 * German compounds put the thing last ("Geschirrspülmaschine", "Kellerfenster"): these stems
 * match at the end of a compound, after other letters (a word that starts with one is the plain
 * term's). Only stems that do not end unrelated words belong here. `weight` as for `place`.
 */
function compound(tag: string, stem: string, weight = 1): Term {
  return { tag, pattern: new RegExp(`(?<=[a-z])(?:${stem})`, 'i'), weight };
}

/** Accents removed, ß as ss and the letters NFD does not split (ł, ø, æ, œ) as Latin ones; case kept (INSTRUCTION_CUES reads case). */
export function foldAccents(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/ß/g, 'ss')
    .replace(/[łŁ]/g, (c) => (c === 'ł' ? 'l' : 'L'))
    .replace(/[øØ]/g, (c) => (c === 'ø' ? 'o' : 'O'))
    .replace(/[æÆ]/g, (c) => (c === 'æ' ? 'ae' : 'AE'))
    .replace(/[œŒ]/g, (c) => (c === 'œ' ? 'oe' : 'OE'));
}

/** The text the terms are matched against: lower case, no accents, ß as ss. */
export function foldForMatching(text: string): string {
  return foldAccents(text).toLowerCase();
}

export const RULES: readonly { readonly category: Exclude<Category, 'other'>; readonly terms: readonly Term[] }[] = [
  {
    // A lift is a machine: its lights, doors and buttons are the lift contractor's (weight 1.5).
    category: 'elevator',
    terms: [
      appliance('elevator', 'elevators?\\b|elevatore|elevador|aufzug|fahrkorb|fahrstuhl|ascenseur|ascensor'),
      appliance('lift', 'lifts?\\b|montacarichi|lastenaufzug'),
      appliance('platform_lift', 'platform lift|montascale|stair ?lift|hoist|dumbwaiter|goods lift|treppenlift|plattformlift|monte-charge|monte-escalier|montacargas|montacarga|salvaescaleras|monta-cargas|elevador de carga|servoscala|piattaforma elevatrice'),
      { ...compound('elevator', 'aufzug|fahrstuhl'), weight: 1.5 },
      appliance('escalator', 'escalator|rolltreppe|escalier mecanique|escalera mecanica|escada rolante|scala mobile'),
      term('trapped', 'trapped|eingeschlossen|eingesperrt|stecken ?geblieben|coince|atrapad|encerrad|intrappolat'),
      // How a lift car misbehaves, named without the word lift: it stops off the floor level.
      symptom('levelling', 'overshoot|undershoot|mis-?level|levell?ing|not level with|releveling|(?:halt|stoppt) nicht bundig|bundig|stolperkante|ne s.arrete pas au niveau|no (?:queda|para) a nivel|desnivelad|desnivel\\b|non si ferma al piano|fuori livello|(?:lift|elevator|passenger) car\\b|(?:car|cabin|kabine|cabine|cabina) (?:\\d|doors?\\b)|floor indicator|vertical transport|lift ?shaft|aufzugsschacht|cage d.ascenseur|hueco del ascensor|poco do elevador|vano (?:corsa|ascensore)'),
      term('lift_nl_pl', 'liften\\b|wind(?:a|y|zie)\\b|dzwig'),
    ],
  },
  {
    category: 'electrical',
    terms: [
      term('spark', 'spark|funk(?:en|t)\\b|etincel|chispa|faisca|scintill|vonk|iskr'),
      term('outlet', 'outlet|steckdose|prise\\b|prises\\b|enchufe|tomada|presa\\b|prese\\b|shaver point|(?:plug|power|double|wall) points?\\b|power strip|extensao|multiprise|regleta|ciabatta|steckerleiste|mehrfachsteckdose|verlengsnoer|przedluzacz|stopcontact|contactdoos|gniazd'),
      term('socket', 'socket'),
      term('power', 'power|strom\\b|stromausfall|courant\\b|(?:plus de|pas de|sans) jus\\b|corriente\\b|energia\\b|corrente\\b|stroom|prad\\b|pradu\\b|zasilani'),
      term('wiring', 'wir(?:e|es|ing)\\b|kabel|leitung|cable|cabo|fio\\b|fios\\b|fiacao|cavo|cavi\\b|conductors?\\b|junction box|extension (?:lead|cord)|flex\\b|trunking|conduit|abzweigdose|verteilerdose|boite de derivation|gaine (?:palier|technique|electrique)|caja de (?:registro|empalme)|caixa de (?:derivacao|passagem)|scatola di derivazione|bedrading|przewod|instalacj'),
      term('breaker', 'breaker|rcd\\b|gfci|gfi\\b|afci|differenziale|rcbo|mcb\\b|sicherung|fi-schalter|fi\\b|disjonct|differentiel|diferencial|disjuntor|salvavita|interruttore generale|aardlek|stoppenkast|bezpiecznik|wylacznik'),
      // A protective device that cuts out, named by what it does ("it keeps tripping", "ça saute").
      symptom('tripping', 'trip(?:s|ped|ping)? (?:out|again|twice|every|whenever|when|each)|keeps tripping|(?:has|have|had) tripped|tripped\\b|fliegt (?:\\S+ )?raus|rausgeflogen|(?:saute|sautent|a saute)\\b|salta (?:el|la|il|de continuo|sempre|ogni)|scatta\\b|(?:il quadro|el automatico|el diferencial|o disjuntor|o quadro) (?:\\S+ )?(?:salta|salto|dispara|cai|vai abaixo)|vai abaixo|doorgeslagen|slaat (?:steeds )?(?:af|door)|wybija'),
      symptom('burning_smell', 'verschmort|smell of (?:hot|burning|melting)|burning smell|hot plastic|melted plastic|odeur de (?:brule|chaud|plastique)|olor a (?:quemado|plastico)|plastico quemado|chei(?:ro|ra) a (?:queimado|plastico)|puzza di (?:bruciato|plastica)|odore di bruciato|brandlucht|schroeilucht|spalenizn|swad spalenizny'),
      term('fuse', 'fuse'),
      term('circuit', 'circuit|kurzschluss|court-circuit|cortocircuito|curto|kortsluiting|zwarci|meter cupboard|meterkast|(?:the|a) (?:groep|group) (?:is|has)'),
      term('panel', 'distribution board|fuse ?box|consumer unit|busbar|breaker panel|panelboard|meter base|service (?:conductors|entrance|drop|panel|head)|sicherungskasten|verteilerkasten|tableau electrique|cuadro electrico|quadro (?:de energia|eletrico|elettrico)'),
      term('electrical', 'electri|elektri|eletri|elettri|meter box|compteur electrique|contador electrico|contatore'),
      symptom('flicker', 'flicker|flacker|clignot|parpade|pisca|sfarfall|tremola|knipper|miga\\b|migaj|mruga'),
      term('fluorescent', 'fluorescent|neon|tube lights?|leuchtstoff|leuchtrohr|tubes? fluo|fluorescentes?|lampadas? fluorescentes?'),
      term('shock', 'shock|(?:da|dan) (?:toques|calambres?|choques?)|choque eletrico|stromschlag|decharge electrique|descarga electrica|scossa|porazen'),
      term('lighting', 'lights\\b|focos?\\b|se fundio|fundid[oa]s?\\b|light (?:bulb|fitting|fixture|switch)|(?:the|a|ceiling|corridor|hallway|stair|emergency|street|security|outside) lights?\\b|lighting|bulb|lamp|licht\\b|beleuchtung|gluhbirne|ampoule|eclairage|bombilla|luz\\b|luces\\b|lampada|lampadina|luce\\b|luci\\b|lumiere|luminaire|lustre|iluminacion|iluminacao|illuminazione|plafoniera|(?:light|ceiling|wall) fittings?|(?:strip|tube|led|panel|spot|down|under-?cupboard|under-?cabinet) ?lights?|downlight|spotlight|luminair|leuchtmittel|illuminat|(?:exit|emergency) signs?|verlichting|lampen\\b|oswietleni|zarowk|lamp[ay]\\b'),
      term('smoke_detector', 'smoke (?:detector|alarm)|rauchmelder|rauchwarnmelder|detecteur de fumee|detector de humo|detector de fumaca|rilevatore di fumo'),
      term('motion_sensor', 'motion sensor|pir sensor|bewegungsmelder|detecteur de (?:presence|mouvement)|sensor de (?:movimiento|presencia|presenca)|sensore di movimento'),
      compound('electrical', 'steckdose|sicherung|stromkabel|verteiler|beleuchtung|lampe\\b|leuchte\\b'),
      term('switch', 'switch|schalter|interrupteur|interruptor|interruttore|apagador|zeitschalter|minuterie|temporizador|minuteria|schakelaar|wylacznik|wlacznik'),
    ],
  },
  {
    category: 'plumbing',
    terms: [
      symptom('leak', 'leak|undicht|leck|fuite|fuga\\b|fugas\\b|vazament|vazando|perdit|gotera|goteira|lekt?\\b|lekkage|lekken|ciekni|cieknie|przeciek|wyciek|spraying|gushing|pissing|weeping|seeping|dribbl|trickl|sickert|spritzt|sprudelt|jaillit|suinte|brota|chorrea|esguicha|jorra|zampill|trasud'),
      // Water where it should not be, seen before its source is: a stain that grows, a tide mark.
      symptom('water_stain', '(?:brown|yellow|damp|wet|water) (?:patch|stain|mark)|tide ?mark|watermark|soft (?:when|to the)|wasserfleck|feuchte(?:r|n)? (?:fleck|stelle)|tache d.(?:humidite|eau)|aureole|aureola|mancha de (?:humedad|agua|humidade)|macchia di (?:umid|acqua)|vochtplek|vochtvlek|zaciek|zacieki|plama wilgoci'),
      place('water', 'water|wasser|eau\\b|eaux\\b|agua\\b|acqua\\b|wod[aey]\\b'),
      term('pipe', 'pipe|rohr|tuyau|canalisation|tuberia|cano\\b|canos\\b|encanament|tubo\\b|tubi\\b|tubatur|mains (?:water|supply)|supply pipe|hose\\b|schlauch|flexible d.alimentation|manguera|mangueira|tubo flessibile|slang\\b|wezyk|waz\\b|garbage disposal|waste disposal|flapper|fill valve|angle valve|eckventil|cold (?:water )?(?:feed|tank)|loft tank|header tank|ball ?cock|ball valve|float valve|schwimmer|flotteur|robinet flotteur|boya\\b|boia\\b|galleggiante|vlotter|stop ?cock|stop valve|isolation valve|valve|joint\\b|water hammer|absperrhahn|haupthahn|robinet d.arret|vanne|llave de paso|valvula|registro geral|valvola|saracinesca dell.acqua|leiding|waterleiding|kraan|rura|rury|rurze|zawor|hebeanlage|pompe de relevage|bomba de achique|pompa di sollevamento|sump pump'),
      term('drain', 'drain|abfluss|ablauf|(?<!plans? d.)evacuation\\b(?! (?:plans?|routes?|chairs?|drills?|procedures?))|desague|sumidero|ralo\\b|scarico|gutter|dachrinne|goutti[eè]re|canalon|calha\\b|grondaia|plughole|plug hole|u-?bend|siphon|sifon|sifao|sifone|syfon|downpipe|down pipe|fallrohr|descente d.eau|bajante|tubo de queda|pluviale|backing up|backs up|slow to (?:empty|drain)|won.t (?:drain|go down)|not draining|(?:lauft|fliesst) (?:nicht|schlecht) ab|s.ecoule (?:mal|lentement)|ne s.ecoule|no (?:traga|desagua)|nao escoa|escoa devagar|non (?:scarica|scende|va giu)|afvoer|odplyw|gurgl|gluckert|glouglou|gorgotea'),
      term('clog', 'clog|blocked|blockage|verstopf|bouchee?s?\\b|atasc|entupi|intasat|otturat|verstopt|zatkan|zapchan'),
      term('toilet', 'toilet|loo\\b|lavatory|urinal|cistern|flush|bog\\b|spulkasten|spulung|chasse d.eau|cisterna|descarga|autoclismo|sanita\\b|sanitas\\b|retrete|vater\\b|sciacquone|orinatoi|urinoir|urinario|toaleta|spluczk|sedes|stortbak|urinoir|water\\b(?= del| di| al| in)|wc\\b|toilette|klo\\b|inodoro|privada|vaso sanitario|gabinetto'),
      term('faucet', 'faucet|wasserhahn|robinet|grifo|torneira|rubinett'),
      term('tap', 'taps?\\b'),
      term('sink', 'sinks?\\b|basin|waschbecken|spule\\b|evier|lavabo|fregadero|pia\\b|lavandino|lavello|gootsteen|wastafel|zlew|umywalk|shower tray|bath\\b|bathtub|badewanne|baignoire|banera|banheira|vasca da bagno|(?:water|wasser) (?:steht|stagn)|standing water|stagnant|acqua stagnante|agua estancada|eau stagnante|agua parada'),
      term('shower', 'shower|dusche|douche|ducha|regadera|chuveiro|doccia|prysznic|douchekop'),
      term('flood', 'flood|uberschwemm|uberflut|inond|inund|alag|allag|staat blank|blank gezet|zala|zalew|leje sie|refoulement|knocheltief|ankle.deep|inches of water|centimetres? of water|steht (?:das |der )?wasser|(?:water|wasser|eau|agua|acqua) (?:on|all over|across) (?:the )?floor|(?:water|agua|acqua) (?:everywhere|ovunque|por todas partes)'),
      symptom('overflow', 'overflow|uberlauf|ubergelaufen|deborde|debordement|desbord|transbord|trabocc|water tank|wassertank|caixa d.agua|deposito de agua|serbatoio|cuve\\b'),
      term('sewage', 'sewage|sewer|abwasser|egout|alcantarill|esgoto|fogna|aguas? negras?|aguas residuales|black water|liquame'),
      term('burst', 'burst|rohrbruch|geplatzt|eclate|revent|estour|scoppiat|let go\\b|pekl\\b|pekla\\b|pekniet'),
      symptom('hiss', 'hiss|zisch|siffle|sifflement|silb|sibil|chiado|suis|syczy'),
      symptom('drip', 'drip|tropf|goutte|gotea|goteo|pinga|gocciol'),
      compound('pipe', 'rohr\\b|rohre\\b|wasserleitung|abflussrohr'),
      symptom('water_pressure', 'water pressure|no water|(?:no|low|poor|sin|sem|peu de|wenig|bassa|scarsa|geen|slabe) (?:\\S+ )?(?:pressure|presion|pressao|pression|druck|pressione|druk|cisnienie)|no tiene presion|wasserdruck|kein wasser|pression d.eau|pas d.eau|presion del agua|sin agua|pressao da agua|sem agua|pressione dell.acqua|senz.acqua'),
      term('damp', 'damp|wasserschaden|feuchtigkeit|degat des eaux|humedad|infiltra|umidit'),
    ],
  },
  {
    category: 'security',
    terms: [
      term(
        'broken_window',
        'glasbruch|(?:broken|smashed|eingeschlagen\\w*|zerbrochen\\w*) (?:\\S+ ){0,2}(?:windows?|glass|panes?|scheiben?|fenster)\\b|' +
          '(?:windows?|glass|panes?|scheiben?|fenster|vitres?|fenetres?|ventanas?|cristal|escaparate|vidros?|janelas?|vitrines?|vitrinas?|vetr[oi]|finestr[ae]|vetrin[ae])\\b' +
          '(?: \\S+){0,3} (?:broken|smashed|kaputt|eingeschlagen|zerbrochen|cassee?s?|brisee?s?|rot[oa]s?|quebrad[oa]s?|rott[oiae])\\b',
      ),
      term('lock', 'lock(?:s|ed|ing)?\\b|padlock|deadbolt|verrou|barrer la porte|vorhangeschloss|cadenas|candado|cadeado|lucchetto|unlock|unsecured|unverschlossen|non verrouill|sin cerrar|destrancad|schloss|serrure|cerradura|fechadura|serratura|latch|slot\\b|hangslot|klodk|zamek|zamk'),
      term('intruder', 'intruder|stranger|eindringling|unbefugt|intrus|intruso|invasor|unknown (?:man|men|woman|person|people|persons|individuals?)|unbekannte|inconnus?\\b|desconocid|desconhecid|sconosciut|onbekende|nieznan|rough sleeper|sleeping in the|anyone can (?:get|come|walk) in|(?:cualquiera|qualquer (?:um|pessoa)|chiunque|iedereen|jeder|n.importe qui) (?:\\S+ )?(?:puede|pode|puo|kan|kann|peut) (?:\\S+ )?(?:entrar|entrare|binnen|rein|herein|entrer)'),
      term('break_in', 'break-?in|broke (?:in|into)|kicked (?:in|through|open)|scassinat|eingetreten|defonce|forced (?:open|entry)|einbruch|eingebrochen|aufgebrochen|aufgehebelt|aufgedruckt|aufgestemmt|cambriol|effraction|force[es]?\\b|forcee?s?\\b|allanamiento|forzad|reventad|arromb|scasso|effrazione|forzat|got (?:in|into) (?:the|our|a)\\b|gained (?:entry|access)|(?:jemmied|prised|pried|levered|cut|snapped) (?:open|off|through)|(?:was|were|been) (?:cut|jemmied|prised|levered|snapped)\\b|entraram|(?:sono |erano )?entrati|se colaron|han entrado|sont entres|eingestiegen|eingedrungen|ingebroken|inbraak|wlam|wlaman|wylaman'),
      term('burglary', 'burglar|einbrecher|ladron|ladrao|ladroes|ladr[oi]\\b|dieven|dief\\b|zlodziej|ransack|durchwuhlt|fouill|revuelt|remexid|rovistat|doorzocht'),
      term('theft', '(?:cash|money|till|tools?|laptops?|bikes?|bicycles?|wallet|purse|phones?|equipment|werkzeug\\w*|geld|kasse|fahrrader|argent|caisse|outils|velos|dinero|caja|herramientas|bicicletas|dinheiro|ferramentas|portateis|soldi|cassa|attrezzi|biciclette|computer)(?: \\S+){0,3} (?:missing|gone|fehlt|fehlen|manque|manquent|falta|faltan|faltam|manca|mancano|ontbreekt|brakuje)\\b|(?:missing|gone|fehlt|fehlen|manque|manquent|falta|faltan|faltam|manca|mancano|ontbreekt|brakuje) (?:\\S+ ){0,2}(?:cash|money|till|tools?|laptops?|bikes?|bicycles?|wallet|purse|phones?|equipment|werkzeug\\w*|geld|kasse|fahrrader|argent|caisse|outils|velos|dinero|caja|herramientas|bicicletas|dinheiro|ferramentas|portateis|soldi|cassa|attrezzi|biciclette|computer)\\b|theft|stolen|steal|(?:are|were|have|has) (?:all )?(?:gone|disappeared)|went missing|verschwunden|disparu|desaparecid|scompars|gestolen|verdwenen|skradzion|zniknel|entwendet|mitgenommen|se (?:han|ha) llevado|se llevaron|levaram|hanno portato via|ont emporte|diebstahl|gestohlen|vol\\b|vole[es]?\\b|robo\\b|robad|hurto|furt(?:[oi]\\b|ar|ad|ou)|roub|rubat'),
      term('alarm', 'alarm|alarme|alarma|allarme'),
      term('cctv', 'cctv|(?:security|surveillance) cameras?|camaras? de (?:seguridad|vigilancia)|cameras? de (?:surveillance|seguranca|vigilancia)|telecamer|kamera|videouberwachung|surveillance|vigilancia|vigilanza|videosorveglianza'),
      term('trespass', 'trespass|hausfriedensbruch'),
      term('vandalism', 'vandal'),
      // How an intruder behaves: climbs in, follows residents through the door, tries the handles.
      term('suspicious_entry', 'tailgat|piggyback|following (?:people|residents|someone) (?:in|through)|trying (?:\\S+ ){0,2}(?:handles|doors)|climbed (?:over |in |through )?(?:the )?(?:fence|wall|gate|window)|jumped (?:over )?the (?:fence|wall|gate)|uber den zaun|escalade|escalaron|saltaron (?:la|el)|pularam|scavalcat|klom over|przeskoczy|se metieron|a robar|rubare|roubar|stehlen|ukrad|kradziez|wybil|wybit'),
      term('squatters', 'squat|hausbesetz|squatt|okupa|ocupas?\\b|invas(?:ao|ores)|abusiv'),
      term('door_open', '(?:doors?|gates?|tur|tore?|portes?|portail|puertas?|porton|cancela|portao|portone|portas?|cancello|deur|hek|drzwi|brama)\\b(?: \\S+){0,5} (?:open|offen|ouverte?|abiert[oa]|abert[oa]|apert[oa])\\b|(?:door|gate) (?:\\S+ )?(?:left|stays?|is|propped|held) open|(?:propped|wedged|chocked) (?:\\S+ ){0,3}(?:doors?|gates?)|(?:doors?|gates?) (?:\\S+ ){0,3}(?:propped|wedged|chocked)|propping (?:it|the door) open|wedged open|held open with|closer (?:\\S+ ){0,3}(?:disconnected|removed|broken)|tur (?:bleibt|steht) offen|porte (?:reste|est restee) ouverte|puerta (?:queda|se queda|esta) abierta|porta (?:fica|ficou) aberta|portone resta aperto|porta resta aperta'),
      compound('break_in', 'einbruch|eingebrochen|turschloss|schliesszylinder'),
      term('keys', 'keys?\\b|key safe|schlussel|cles?\\b|llaves?\\b|chaves?\\b|chiav[ei]\\b'),
      place('shutter', 'roller (?:door|shutter)|shutters?\\b|rolltor|rollladen|rideau metallique|persiana metalica|porta de enrolar|serranda|saracinesca'),
      term('fence', 'fence|fencing|zaun|cloture|grillage|valla\\b|vallado|cerca\\b|alambrado|recinzione'),
      term('mail_tampering', 'mailbox|letterbox|postbox|briefkast|boites? aux lettres|buzon|caixas? de correio|cassett[ae] postal|fractur'),
      compound('broken_window', '(?:fenster|scheibe)n? (?:\\S+ )?(?:eingeschlagen|zerbrochen|kaputt)'),
      term('does_not_close', '(?:doors?|gates?|tur|tore?|portes?|portail|puertas?|porton|cancela|portao|portone|portas?|cancello|deur|hek|drzwi|brama)\\b(?: \\S+){0,4} (?:won.t|doesn.t|does not|will not|not|nicht|ne|no|nao|non)(?: \\S+)? (?:close|lock|shut|schliess|ferme|cierra|fecha|chiude)'),
      term('access_control', 'access control|fob\\b|badge|key ?card|card reader|swipe card|carte d.acces|lecteur de badge|tarjeta de acceso|cartao de acesso|lettore di badge|tessera|toegangspas|kartenleser|ausweisleser|zutritt|zugang|acces\\b|acceso|acesso|accesso|citofono|interfon|gegensprechanlage|door entry|entry system|entry phone|buzzer|intercom|keypad|digicode|portero automatico|videoportero|interfone|porteiro eletronico'),
    ],
  },
  {
    category: 'structural',
    terms: [
      term('crack', 'crack|riss\\b|risse\\b|rissbildung|fissur|lezard|grieta|rachadura|trinca|crepa|crepe\\b|scheur|peknie|peka\\b|rys[ay]\\b|zarysowa|fendas?\\b|fendilh'),
      compound('crack', 'risse?\\b'),
      // Movement of the building shown by what it does to the rooms: gaps that open, doors that bind.
      symptom('movement', 'gaps? (?:is |are )?(?:opening|widening|appearing)|opening up|out of (?:line|plumb|level)|(?:doors?|windows?) (?:now )?(?:stick|jam|bind|scrape)|stepping|stepped crack|klafft|fuge\\b|verzakking|verzakt|ecart|se decolle|separacion|afastamento|distacc|springy|spongy|bouncy|gives? underfoot|(?:has|have) dropped|dropped\\b'),
      place('wall', 'walls?\\b|wand\\b|wande\\b|mauer|mur\\b|murs\\b|pared|muro\\b|muri\\b|parede|parete|pareti'),
      term('beam', 'beam|balken|trager|poutre|viga\\b|vigas\\b|trave\\b|travi\\b'),
      place('ceiling', 'ceiling|decke\\b|plafond|techo|teto\\b|soffitto|falso techo|faux plafond'),
      term('foundation', 'foundation|fundament|fondation|cimiento|cimentacion|fundacao|fondazion|fundering|retaining wall|stutzmauer|mur de soutenement|muro de (?:contencion|contencao|suporte|sostegno|contenimento)|keerwand|brickwork|masonry|mortar|repointing|mauerwerk|maconnerie|mamposteria|ladrillo|alvenaria|muratura|metselwerk|mur(?:y|ow)|cegl|chimney|schornstein|kamin\\b|cheminee|chimenea|chamine|comignolo|gable|giebel|pignon|hastial|empena|timpano|gevel|floorboards?|dielen|parquet|plancher|tarima|soalho|pavimento in legno|vloer|podlog|pier\\b|coping|parapet|attika|acrotere|pretil|platibanda|nosna|nosnej'),
      term('collapse', 'collaps|einsturz|eingesturzt|effondr|derrumb|desab|crollo|crollat|fallen (?:onto|off|down)|caido|caduto'),
      term('roof', 'roof|dach\\b|dachziegel|toit|toiture|tuile|tejado|tejas?\\b|telhado|telha|tetto|tegol|dak\\b|dakpan|dachow'),
      place('eaves', 'eaves|fascia|soffit board|dachtrauf|traufe|avant-toit|alero|beiral|gronda|dakrand|okap dachu'),
      term('column', 'column|stutze|saule|pilier|pilar|colonna|pilastro'),
      term('subsidence', 'subsidence|settlement|absenkung|setzung|affaissement|hundimiento|afundamento|cedimento'),
      term('facade', 'facade|fassade|fachada|facciata|cornice|corniche|cornisa|cornija|cornicione|gesims|kroonlijst|gzyms'),
      place('balcony', 'balcon|balkon|varanda|balcone|terrace|terrasse|terraza|terrazzo'),
      term('slab', 'slab|soffits?\\b|dalle|forjado|laje|solaio|rebar|bewehrung|armadura|armatura'),
      term('plaster', 'plaster|render\\b|putz\\b|platre|crepi|enduit|enlucido|yeso|revoque|reboco|intonaco|pleister|tynk'),
      term('spalling', 'spall|delaminat|hollow (?:sound|when)|desconchon|betonabplatz|beton a soltar|calcinacc|abplatz|eclatement|desconchad|desplacad|desprendimiento|distacco|sfaldament|chunks? of concrete|concrete chunks|render (?:falling|coming)'),
      term('deformation', 'sagging|bowing|bulging|leaning|hangt (?:\\S+ )?durch|s.affaiss|se hunde|cede\\b|doorhangen|doorbuig|ugiet|bent\\b|buckled|durchgebogen|verbogen|ausgebeult|schief|affaisse|bombe|penche|tordu|abombad|combad|torcid|inclinad|empenad|envergad|incurvat|piegat|storto'),
      symptom('rot', 'rot(?:ten|ting)?\\b|dry rot|wet rot|morsch|verrott|pourri|podrid|podre|marci|verrot|zgnil|gave way|gives way|give way|nachgegeben|a cede|cedio|cedeu|ceduto|bezweken|(?:loose|falling) (?:stones|bricks|blocks)|lose (?:steine|ziegel)|pierres descellees|piedras sueltas|pedras soltas|pietre (?:smosse|staccate)'),
      // A floor that lifts or humps, tiles coming away from it, fabric lying in the street.
      symptom('heave', 'heav(?:e|ing)|(?:floor|tiles?) (?:\\S+ )?(?:lifted|lifting|popping|coming (?:up|loose))|aufgewolbt|gewolbt|souleve|levantad|levantou|sollevat|a gobba|opgebold|wybrzuszon|(?:lying|liegt|liegen|gisent?|yace|tirad[oa]s?) (?:\\S+ ){0,2}(?:on the (?:pavement|sidewalk|street|road)|auf dem (?:gehweg|burgersteig)|sur le trottoir|en la acera|na calcada|sul marciapiede)|heruntergerissen|heruntergefallen|herabgefallen|efflorescence|ausbluhung|salpetre|salitre|salnitro'),
      place('tiles', 'floor tiles|piastrell|fliesen|carrelage|baldosas?|azulejos?|ladrilhos?|tegels|plytki|plytek'),
      place('decking', 'decking|deck boards?|boardwalk|walkway|laubengang|coursive|pasarela|passadico|ballatoio|galerij'),
      term('handrail', 'handrail|railing|balustrade|banister|gelander|brustung|handlauf|garde-corps|rampe\\b|barandilla|pasamanos|corrimao|guarda-corpo|ringhiera|corrimano|parapetto'),
      compound('stairs', 'treppe', 0.5),
      place('steps', 'steps?\\b|stufen?\\b|marches?\\b|escalon|peldan|degraus?\\b|gradin'),
      place('stairs', 'stairs?\\b|staircase|stairwell|treppe|escalier|escalera|escada|scala\\b|scale\\b'),
      term('rafters', 'rafter|joist|truss|lintel|sturz\\b|sparren|chevron|solive|linteau|viguet|dintel|caibro|verga|travetto|architrave'),
      place('window', 'windows?\\b|window frame|fenster|fenetre|ventana|janela|finestra|infisso'),
      term('canopy', 'canopy|vordach|auvent|marquesina|marquise|pensilina|tettoia'),
      compound('structural', 'ziegel|balken|fundament'),
      compound('wall', 'decke\\b|wand\\b|mauer', 0.5),
    ],
  },
  {
    // The named appliance is what needs the technician: it outweighs a symptom and a substance
    // ("the dishwasher leaks water" is an appliance matter), see `appliance` below.
    category: 'appliance',
    terms: [
      appliance('fridge', 'fridge|refrigerator|refri\\b|refrigerador|frigidaire|icemaker|freezer|kuhlschrank|gefrier|frigo|refrigerateur|congelateur|nevera|frigorific|geladeira|frigorifico|congelador|frigorifero|koelkast|vriezer|lodowk|zamrazark'),
      appliance('oven', 'oven|backofen|ofen\\b|(?:le|du|au) four\\b|horno|forno'),
      appliance('stove', 'stove|cooker|cooktop|burners?\\b|hob\\b|herd\\b|herdplatte|kochplatte|ceranfeld|cuisiniere|plaque de cuisson|cocina electrica|vitroceramica|fogao|piano cottura|fornell'),
      appliance('dishwasher', 'dishwasher|spulmaschine|geschirrspuler|lave-vaisselle|lavavajillas|lava-loucas|lavastoviglie|vaatwas|zmywark'),
      appliance('washing_machine', 'washing machine|washer|laveuse|essorage|spin cycle|schleudergang|centrifugado|centrifugacao|centrifuga\\b|waschmaschine|lave-linge|lavadora|maquina de lavar|lavatrice|wasmachine|pralk'),
      appliance('dryer', 'dryer|drier\\b|tumble|secheuse|trockner|seche-linge|secadora|asciugatrice|droger|wasdroger|suszark'),
      appliance('small_appliance', 'toaster|toaster|grille-pain|tostador|torradeira|tostapane|broodrooster|toster|blender|mixer\\b|cooker ring|hob ring|\\brings? (?:on|of) the (?:cooker|hob|stove)|kookplaat|fornuis|kuchenk|plyta indukcyjna|piekarnik|magnetron|mikrofal'),
      appliance('microwave', 'microwave|mikrowelle|micro-ondes|micro-ondas|microondas|microonde'),
      appliance('hot_water', 'hot water|warmwasser|eau chaude|agua caliente|agua quente|acqua calda|banho quente|ducha caliente|douche chaude|warm water|ciepla woda|cieplej wody'),
      appliance('boiler', 'boiler|furnace|short-?cycl|therme\\b|gastherme|heizkessel|chaudiere|caldera|caldeira|caldaia|esquentador|cv-?ketel|ketel\\b|combi boiler|piec\\b|piecyk|bojler'),
      appliance('heater', 'heater|heating|no heat\\b|heizung|chauffe-eau|ballon d.eau chaude|chauffage|calentador|calefaccion|termo\\b|termo electrico|aquecedor|scaldabagno|riscaldamento|radiator|radiateur|radiador|termosifon|verwarming|ogrzewani|grzejnik|kaloryfer'),
      appliance('hvac', 'hvac|a/c\\b|\\bac\\b|aircon|air con\\b|air-con|airco|klima\\b|klimager|clim\\b|climatiseur|fan ?coil|chiller|cold room|walk-in (?:fridge|freezer|chiller|cooler)|kuhlraum|kuhlzelle|chambre froide|camara frigorifica|camara fria|cella frigorifera|koelcel|klimatyzac|air condition|klimaanlage|climatis|aire acondicionado|ar-condicionado|ar condicionado|condizionatore|climatizzatore'),
      appliance('extractor', 'extractor|exhaust fan|cooker hood|range hood|afzuigkap|okap\\b|dunstabzug|abzugshaube|lufter|hotte|vmc\\b|campana extractora|extractor|exaustor|coifa|cappa|aspiratore'),
      appliance('radiator_compound', 'heizkorper|heizkoerper|radiatore|termosifone'),
      appliance('heat_pump', 'heat pump|warmepumpe|pompe a chaleur|bomba de calor|pompa di calore|ballon\\b|water tank|hot water cylinder|immersion'),
      { ...compound('appliance', 'spulmaschine|kuhlschrank|waschmaschine|trockner|herd\\b|backofen|therme\\b|boiler'), weight: 1.5 },
      appliance('machine', 'ice machine|ice maker|eismaschine|machine a glacons|maquina de hielo|maquina de gelo|macchina del ghiaccio|treadmill|exercise bike|vending machine|coffee machine|laufband|kaffeemaschine|kaffeeautomat|getrankeautomat|machine a cafe|distributeur automatique|cafetera|maquina de cafe|maquina expendedora|esteira|maquina de venda|macchina del caffe|distributore automatico'),
      // What a cooling machine does when it fails: frost builds up, the compressor stops.
      symptom('cooling_fault', 'frost(?:ed|ing)? up|icing up|iced (?:up|solid)|ices up|escarcha|givre|vereist|brina|compressor|compresseur|compresor|compressore|kompressor|no enfria|ne refroidit|nao gela|parou de gelar|non raffredda|kuhlt nicht|koelt niet|nie chlodzi'),
      appliance('kettle', 'kettle|wasserkocher|bouilloire|hervidor|chaleira|bollitore'),
    ],
  },
  {
    category: 'cleaning',
    terms: [
      term('stain', 'stain|fingerprint|handprint|hand marks|(?:coffee|tea|wine|dirty|sticky|scuff|tyre|tire|black|muddy) marks|smear|smudge|streak|traces\\b(?! de (?:brulure|fissur))|vlek|plam[ay]\\b|schliere|fingerabdr|traces de doigts|huellas|impront|alone|fleck|tache|mancha|macchia'),
      term('spill', 'spill|spilt\\b|verschuttet|renverse|derramad'),
      term('dirty', 'dirt|mud\\b|muddy|schlamm|matsch|boue\\b|boueu|barro\\b|fango|lodo\\b|enlamead|schmutz|verschmutz|dreck|sale\\b|sales\\b|salete|crasse|sucio|sucia|suciedad|mugre|sujo|suja|sujeira|sporc'),
      term('trash', 'trash|garbage|rubbish|litter|bins?\\b|bin store|wheelie|skip\\b|dumpster|cartacce|volantini|flyers|leaflets|prospekte|tracts\\b|folletos|panfletos|containers?\\b|contenedor|contentor|cassonett|kippen|cigarette (?:butts|ends)|fag ends|megots|colillas|beatas|mozzicon|vuilnis|zwerfvuil|afval|smiec|odpad|mull\\b|abfall|abfalle|dechet|ordure|poubelle|basura|residuo|lixo|lixeira|rifiut|spazzatura|immondizi'),
      term('mold', 'mou?ld|musty|modrig|muffig|moisi|mohoso|mofad|ammuffit|schimmel|moisissure|moho\\b|mofo\\b|bolor|muffa'),
      term('odor', 'odou?r|smell|stink|gestank|geruch|odeur|olor\\b|cheiro|odore|puzza'),
      term('graffiti', 'graffiti|spray(?:ed)?\\b|spraypaint|tag(?:ged|s)? on|tags (?:au|a la|en|with|in|im)\\b|marker pen|felt-?tip|feutre|filzstift|rotulador|pennarello|grafiti|grafite|pintadas?\\b|pichac|schmierereien|imbratt'),
      term('pests', 'pests?\\b|vermin|rac+oons?|possums?|opossums?|squirrels?|fox(?:es)?\\b|waschbar|marder|fuchs|raton laveur|renards?|mapaches?|zarigueyas?|guaxinim|procion[ei]|volpi?\\b|fain[ae]\\b|wasbeer|szop|kuny?\\b|rats?\\b|mice\\b|mouse\\b|cockroach|infest|wasps?\\b|hornets?|bees? nest|nest\\b|nests\\b|bed ?bugs?|fleas?\\b|fruit flies|flies\\b|ants\\b|silverfish|moths?\\b|wespen|hornisse|bettwanzen|flohe|ameisen|fliegen\\b|motten|koettel|kottel|guepe|frelon|punaises|puces\\b|fourmis|mouches\\b|avispa|chinches|pulgas|hormigas|moscas\\b|vespa\\b|vespe\\b|calabron|percevejo|formigas|mosquitos|cimici|pulci|formiche|mosche\\b|muizen|wespen|kakkerlak|mieren|myszy|szczur|karalu|pluskw|mrowk|osy\\b|ratten|mause|ungeziefer|schadling|kakerlak|souris|cafard|nuisible|ratas?\\b|ratones|cucaracha|plaga|ratos?\\b|baratas?\\b|praga|topi\\b|ratti|scarafagg|infestazion'),
      term('sharps', 'sharps\\b|needles|syringes?|spritzen|seringues?|jeringuillas?|jeringas?|seringas?|siring(?:a|he)|naalden|injectienaald|strzykaw|igly'),
      term('bodily_fluids', 'vomit|threw up|thrown up|sick on|urine|faeces|feces|excrement|erbroch|kot\\b|vomi\\b|excrements|vomito|heces|fezes|escrementi'),
      term('mess', 'mess\\b|messy|gunk|slimy|slime|grease|greasy|fettig|graisse|grasa|gordura|unto\\b|filthy|grime|grubby|sticky|(?:chewing )?gum\\b|cobweb|spinnwe|toiles? d.araignee|telaran|teias? de aranha|ragnatel|spinrag|pajeczyn|dust\\b|dusty|staub|poussiere|polvo\\b|poeira|polvere|stof\\b|kurz\\b|been sick|(?:dog|dogs) (?:mess|poo|fouling|dirt)|hundekot|crottes?|cacche|hondenpoep|psie kupy|vies\\b|vuil\\b|brud|brudn|colle\\b|collant|verdreck|dreckig|schmierig|crade|crasseu|pegajos|chicle|chiclete|imundo|sudicio|lercio|appiccicos'),
      term('clutter', 'clutter|obstruct|encombr|zugestellt|versperrt|obstruid|ingombr|desorden|bagunca'),
      compound('droppings', 'kot\\b'),
      term('droppings', 'droppings|bird muck|pigeon|taube|fiente|excrementos?|excrementi|guano|cacas?\\b'),
      term('leaves_moss', 'leaves|moss\\b|laub\\b|moos\\b|feuilles mortes|mousse\\b|hojas\\b|musgo|folhas\\b|foglie|muschio'),
      term('dumped_waste', 'fly-?tipp|dumped|sperrmull|abgeladen|illegal entsorgt|encombrants|depot sauvage|vertido|escombros|entulho|rifiuti abbandonati|ingombranti'),
      compound('trash', 'mull\\b|abfall'),
      compound('cleaning', 'reinigt|putzt'),
      term('cleaning', 'clean|reinig|putzen|nettoy|menage\\b|limpi|limpez|limpar|pulizi|pulit|pulir|mop\\b|deep clean|mopp|wipe|sweep|vacuum|hoover|gewischt|wischen|gefegt|fegen|gekehrt|staubsaug|balayer|aspirer|serpill|barrer|fregar|aspirar|varrer|spazzar|lavare i pavimenti|schoonma|dweilen|sprzat|posprzat'),
      place('flooring', 'carpet|rug\\b|floor mats?|door ?mats?|entrance mat|mats\\b|teppich|fussmatte|moquette|tapis|alfombra|felpudo|tapete|tappet|zerbino|vloerkleed|deurmat|dywan|wycieraczk'),
    ],
  },
];

/** Any of these makes the report urgent and raises the `urgent_keywords` risk flag. */
export const URGENT_TERMS: readonly Term[] = [
  term('fire', 'fires?\\b(?! (?:exits?|doors?|escape|extinguishers?|safety|drill|alarm|risk|assessment|marshal|warden|plan|strategy|rating|stopping|resistant|blanket|hydrant|service|inspection|certificate|equipment|brigade))|feuer|brand\\b|brennt|incendi|feu\\b|fuego|fogo\\b|fuoco'),
  term('smoke', 'smok(?!e (?:detector|alarm|sensor|vent))|rauch(?!melder|warnmelder)|fumee|humo\\b|fumaca|fumo\\b'),
  term('spark', 'spark|funk(?:en|t)\\b|etincel|chispa|faisca|scintill|vonk|iskr'),
  term('burning', 'burning|burnt|verschmort|verbrannt|smell of hot|hot plastic|melt(?:ed|ing)\\b|geschmolzen|derret|fondu|sciolt|stopil|schmort|brule|spalenizn|brandlucht|schroei|quemad|(?<!(?:lampadas?|lampada|bulbs?|light) )queimad|bruciat'),
  term('gas_smell', 'gas (?:leak|smell)|smell of gas|gasgeruch|riecht nach gas|odeur de gaz|fuite de gaz|olor a gas|fuga de gas|cheiro de gas|vazamento de gas|odore di gas|fuga di gas'),
  term('flood', 'flood|uberschwemm|uberflut|inond|inund|alag|allag'),
  term('trapped', 'trapped|eingeschlossen|eingesperrt|coince|atrapad|encerrad|intrappolat|bloquee?s? dans|(?:people|persons?|passengers?|porters?|residents?|tenants?|workers?|staff|children|kids|someone|somebody|persona|personas|pessoa|pessoas|persone|personnes|leute|personen|bewohner|mieter|vecin[oa]s?|moradores|inquilini|locataires|mensen|osob[ay]?|ludzi|gente|qualcuno) (?:\\S+ ){0,2}(?:inside|dentro|drin|a l.interieur|binnen|w srodku)\\b|(?:pres[ao]s?|bloquead[oa]s?|travad[oa]s?|chius[oa]|bloccat[oa]) (?:\\S+ )?dentro\\b'),
  term('injury', 'injur|hurt\\b|verletz|blesse|herid|ferid|ferit|gewond|rann[iy]'),
  term('emergency', 'emergenc(?!y (?:light|lighting|exit|stop|door|escape|lamp))|notfall|notruf|urgence|emergencia|emergenza|pompiers|fire brigade|feuerwehr|bomberos|bombeiros|vigili del fuoco'),
  term('urgent', 'urgent|dringend|urgente'),
  term('danger', 'danger|gefahr|(?<=[a-z])gefahr\\b|peligro|perigo|pericolo|risk of (?:falling|collapse|electrocution)|fall hazard|risque de chute|riesgo de caida|risco de queda|rischio di caduta'),
  term('uncontrolled_movement', 'free ?fall|(?:dropped|fell|slid) (?:\\S+ ){0,3}suddenly|suddenly (?:dropped|fell)|abgesackt|abgesturzt|chute libre|caida libre|queda livre|caduta libera|precipitat'),
  term('collapse', 'collaps|einsturz|eingesturzt|effondr|derrumb|desab|crollo|crollat|fallen (?:onto|off|down|from)|herabgefallen|heruntergefallen|tombee?s? (?:sur|du|de)|(?:se ha|ha) caido|e caduto|sono cadut'),
  term('electric_shock', 'electric shock|electrocut|stromschlag|electrocu|eletrocu|folgor'),
  term('burst', 'burst|rohrbruch|geplatzt|eclate|revent|estour|scoppiat|let go\\b|pekl\\b|pekla\\b|pekniet'),
  term('water_and_electrics', '(?:water|wasser|eau|agua|acqua)\\b[^.]{0,40}\\b(?:electri|elektri|eletri|elettri|socket|outlet|steckdose|prise|enchufe|tomada|fuse|breaker|sicherung)|(?:electri|elektri|eletri|elettri|socket|outlet|steckdose|prise|enchufe|tomada)\\w*[^.]{0,40}\\b(?:water|wasser|eau|agua|acqua)\\b'),
  term('evacuated', '(?<!plans? d.)(?:evacu|evakuier)\\w*\\b(?! (?:plans?|routes?|chairs?|drills?|procedures?|signs?|lights?|plan))'),
];

export const HIGH_TERMS: readonly Term[] = [
  term('leak', 'leak|undicht|leck|fuite|fuga\\b|vazament|vazando|perdit'),
  term('broken', 'broken|kaputt|defekt|gebrochen|casse|roto\\b|rota\\b|rotos\\b|quebrad|rott[oa]\\b|guast'),
  term('intruder', 'intruder|eindringling|intrus|intruso|invasor|unknown (?:man|men|woman|person|people|persons|individuals?)|unbekannte|inconnus?\\b|desconocid|desconhecid|sconosciut|onbekende|nieznan|rough sleeper|got in(?:to)?\\b'),
  term('break_in', 'break-?in|broke (?:in|into)|kicked (?:in|through|open)|scassinat|forced (?:open|entry)|einbruch|eingebrochen|aufgebrochen|aufgehebelt|aufgedruckt|aufgestemmt|eingestiegen|eingedrungen|cambriol|effraction|forcee?s?\\b|allanamiento|forzad|reventad|arromb|entraram|scasso|forzat|entrati|got (?:in|into) (?:the|our|a)\\b|gained (?:entry|access)|(?:jemmied|prised|pried|levered) open|ingebroken|inbraak|wlam|wlaman|wylaman'),
  term('theft', '(?:cash|money|till|tools?|laptops?|bikes?|bicycles?|wallet|purse|phones?|equipment|werkzeug\\w*|geld|kasse|fahrrader|argent|caisse|outils|velos|dinero|caja|herramientas|bicicletas|dinheiro|ferramentas|portateis|soldi|cassa|attrezzi|biciclette|computer)(?: \\S+){0,3} (?:missing|gone|fehlt|fehlen|manque|manquent|falta|faltan|faltam|manca|mancano|ontbreekt|brakuje)\\b|(?:missing|gone|fehlt|fehlen|manque|manquent|falta|faltan|faltam|manca|mancano|ontbreekt|brakuje) (?:\\S+ ){0,2}(?:cash|money|till|tools?|laptops?|bikes?|bicycles?|wallet|purse|phones?|equipment|werkzeug\\w*|geld|kasse|fahrrader|argent|caisse|outils|velos|dinero|caja|herramientas|bicicletas|dinheiro|ferramentas|portateis|soldi|cassa|attrezzi|biciclette|computer)\\b|theft|stolen|gestohlen|diebstahl|vole[es]?\\b|robo\\b|robad|furt(?:[oi]\\b|ar|ad|ou)|roub|rubat|ladri\\b|ladrones|ladroes|gestolen|skradzion|(?:are|were|have|has) (?:all )?(?:gone|disappeared)|ont disparu|sont partis|han desaparecido|desapareceram|sono spariti|spariti|verschwunden'),
  term('no_power', 'no power|no electricity|went dead|(?:sockets?|points?|power|circuits?|lights?|electrics|outlets?) (?:\\S+ )?(?:are|is|went|gone) dead\\b|(?:plus|pas) de (?:jus|courant)|se fue la luz|geen stroom|brak pradu|keine? (?:strom|elektrizitat)|sans electricite|sin electricidad|sem eletricidade|senza elettricita|power (?:cut|outage)|outage|stromausfall|kein strom|panne de courant|coupure de courant|se ha ido la luz|sin luz|apagon|sem (?:luz|energia)|queda de energia|manca la corrente|senza corrente|blackout'),
  term('stuck', 'stuck|steckt fest|parad[oa]\\b|bloccat|staat stil|stoi\\b|utknel|nie dziala|werkt niet|doet het niet|defect\\b'),
  term('not_working', "not working|out of order|(?:e|sta) ferm[oa]\\b|ferm[oa] da\\b|u/s\\b|unserviceable|nie dziala|werkt niet|doet het niet|deixaram de funcionar|ne marche (?:plus|pas)|no anda|non va\\b|out of service|does not work|doesn't work|funktioniert nicht|ausgefallen|ausser betrieb|ne fonctionne (?:plus|pas)|en panne|hors service|no funciona|averiad|fuera de servicio|nao funciona|fora de servico|non funziona|fuori servizio|in blocco"),
  term('exposed_wire', 'exposed (?:wir|live|busbar|conductor|cable)|live (?:wire|busbar|conductor|parts)|conductors? (?:\\S+ ){0,2}(?:visible|exposed|showing|accessible)|bare (?:wires?|conductors?|cables?)|(?:cover|lid) (?:missing|off|broken)|offene(?:n)? kabel|kabelenden|cables? (?:a nu|denude|suelto|pelado)|fiacao exposta|fios? (?:descascad|expost)|cavi (?:scoperti|a vista)|fili scoperti|blanke draden|gole przewody|denud'),
  term('crack', 'crack|riss\\b|risse\\b|(?<=[a-z])risse?\\b|fissur|grieta|rachadura|crepa|scheur|peknie|peka\\b'),
  term('scorch', 'scorch|brandspur|brandfleck|trace de brulure|traces de brulure|chamusc|quemadura|queimadura|bruciatur'),
  term('water_through_ceiling', '(?:water|wasser|eau|agua|acqua)\\b[^.]{0,40}\\b(?:ceiling|decke|plafond|techo|teto|soffitto)|(?:ceiling|decke|plafond|techo|teto|soffitto)\\b[^.]{0,30}\\b(?:drip|leak|tropft|undicht|goutte|fuit|gotea|pinga|gocciol|perde)|from the (?:floor|flat) above|von oben (?:durch|herab)|de l.etage du dessus|del piso de arriba|do andar de cima|dal piano di sopra'),
  term('water_ingress', 'rain(?:s|ing)? (?:\\S+ )?(?:in|into|through|coming)\\b|(?:when|every time|whenever) it rains|wenn es regnet|quand il pleut|cuando llueve|cada vez que llueve|quando chove|quando piove|regnet (?:rein|herein|auf|in)|daylight visible|pleut (?:dans|a l)|llueve dentro|chove dentro|piove dentro'),
  term('sharps', 'sharps\\b|needles|syringes?|spritzen|seringues?|jeringuillas?|jeringas?|seringas?|siring(?:a|he)|naalden|strzykaw|broken glass|glasscherben|debris de verre|cristales rotos|vidros partidos|vetri rotti'),
  term('suspicious_entry', 'tailgat|following (?:people|residents|someone) (?:in|through)|trying (?:\\S+ ){0,2}(?:handles|doors)|climbed (?:over |in |through )?(?:the )?(?:fence|wall|gate|window)|jumped (?:over )?the (?:fence|wall|gate)|pularam|scavalcat|se metieron|a robar|ukrad|kradziez|wybil|wybit|se (?:han|ha) llevado|se llevaron|levaram|hanno portato via|ont emporte|mitgenommen|entwendet'),
  term('storm', 'storm|sturm|unwetter|tempete|tormenta|temporal|tempestade|tempesta'),
  term('loose_railing', '(?:handrail|railing|balustrade|banister|gelander|brustung|garde-corps|barandilla|corrimao|guarda-corpo|ringhiera|parapetto)\\w*(?: \\S+){0,4} (?:loose|wobbl|lose|wackel|descelle|bouge|suelt|solt|allentat)'),
  term('sewage', 'sewage|raw sewage|abwasser|egout|eaux usees|aguas? negras?|aguas residuales|esgoto|fogna|liquame'),
  term('stopped_between_floors', 'between (?:two )?floors|zwischen (?:zwei |den )?(?:etagen|stockwerken)|entre deux (?:niveaux|etages)|entre (?:dos )?(?:pisos|plantas)|entre (?:dois )?andares|tra (?:due )?piani'),
  term('falling_debris', 'falling (?:debris|pieces|plaster|tiles|render|bricks|masonry)|(?:fell|falls|fallen) (?:off|onto|on|down|from|into)|(?:caen|cae|cayo|cayeron) (?:\\S+ ){0,3}(?:a la|al|sobre|en la)|(?:tombe|tombent|tombes|tombee?|est tombe) (?:sur|du|de|dans)|(?:caem|caiu|cairam) |(?:cade|cadono|e caduto|sono caduti)\\b|valt (?:naar beneden|op)|spada|odpada|teile (?:\\S+ ){0,4}gefallen|concreto caindo|concrete falling|chunks?\\b|pieces fell|herabfall|herunterfall|chute de|desprend|caindo|cadut[oie]|pezzi'),
  term('exposed_rebar', 'rebar|bewehrung|eisen sichtbar|armature|armadura|armatura|ferri\\b|ferragem|fers (?:\\S+ )?(?:apparents|a nu|visibles)|hierros? (?:a la vista|vistos)|wapening|zbrojeni'),
  // The structure giving way or moving: beams sagging, lintels dropping, walls bulging.
  term('deformation', 'sagging|bowing|bulging|leaning|hangt (?:\\S+ )?durch|durchgebogen|ausgebeult|s.affaiss|affaisse|bombe\\b|penche|se hunde|hundid|abombad|cede\\b|cedut|incurvat|doorhang|doorbuig|ugiet|wybrzusz|(?:has|have|had) dropped'),
  // Water arriving in quantity, or where it reaches wiring or other flats.
  term('water_volume', 'spraying|gushing|pouring|pissing|jets? of water|inches of water|centimetres? of water|ankle.deep|knocheltief|steht (?:das |der )?wasser|jaillit|chorro|jorra|esguicha|zampill|staat blank|zalan|(?:agua|acqua|water) (?:ovunque|everywhere|por todas partes)'),
  // Someone can fall: a step in a floor, a lip, a slippery walkway.
  term('trip_hazard', 'trip(?:ping)? hazard|stumbl|tripping over|stolper|trebuch|tropez|tropiez|tropec|inciamp|struikel|potyka|slippery|glatt\\b|rutschig|glissant|resbaladiz|escorregadi|scivolos|glad\\b|sliski'),
  // Electrical heat before a fire: something warm, buzzing or crackling that should not be.
  term('electrical_heat', '(?:hot|warm) to the touch|(?:is|feels|getting) (?:very )?(?:hot|warm)\\b|buzzing|crackl|knister|brummt|grésill|gresill|chisporrote|crepita|ronza|zoemt|brzecz|trzeszcz'),
  // Fabric giving way bit by bit, or struck by a vehicle.
  term('deterioration', 'crumbl|brockel|brocklig|s.effrit|desmoron|esfarel|sbricciol|afbrokkel|krusz|(?:reversed|crashed|drove|driven|backed) into|vehicle (?:impact|strike)|angefahren|percute|chocad[oa] contra|embat(?:eu|ido) (?:em|contra)|urtat[oa]'),
  term('smashed', 'smashed|shattered|eingeschlagen|zertrummert|brise|fracass|destrozad|estilhac|frantumat|sfondat'),
  term('squatters', 'squat|hausbesetz|okupa|invasores'),
  term('no_heating', 'no (?:heating|heat|hot water)\\b|kein warmwasser|keine heizung|pas d.eau chaude|sin calefaccion|no hay (?:calefaccion|agua caliente)|sem agua quente|niente acqua calda|senza riscaldamento'),
];

export const LOW_TERMS: readonly Term[] = [
  term('minor', 'minor|mineur|menor\\b|minore\\b|gering'),
  term('cosmetic', 'cosmetic|kosmetisch|cosmetique|cosmetico|estetic'),
  term('scuff', 'scuff'),
  term('routine', 'routine|rutina|rotina|annual (?:visit|inspection|walk)|jahrliche|inspection due|(?:service|inspection) (?:is )?due|a surveiller|monitoring|to monitor|beobachten|vigilar|monitorizar|monitorare'),
  term('scheduled', 'scheduled|geplant|planifie|programad|agendad|programmat'),
  term('slight', 'slight|leicht|leger|legere|leve\\b|lieve|legger'),
  term('small', 'small|klein|petite?s?\\b|pequen|piccol'),
  term('nothing_to_report', 'nothing (?:further|to (?:report|note))|no further (?:action|issues)|no defects|(?:all|everything) (?:\\S+ )?(?:in date|present|correct|as expected)|as expected|no issues|all (?:areas )?in order|alles in ordnung|keine mangel|rien a signaler|sin incidencias|todo correcto|nada a relatar|nessun problema'),
];

/**
 * Words that say a fault is small or not getting worse: they lower a high priority to medium
 * (never an urgent one), so a hairline crack that has not changed is not ranked with a fresh one.
 */
export const SOFTENING_TERMS: readonly Term[] = [
  term('hairline', 'hairline|haarriss|microfissur|fissure fine|fisura capilar|fissura capilar|capillar'),
  term('minor', 'minor\\b|mineure?s?\\b|geringfugig|menor(?:es)?\\b|minore\\b|lieve\\b'),
  term('a_little', 'a (?:bit|little)\\b|slightly|un peu|ein (?:bisschen|wenig)|un poco|um pouco|un po\\b|nada grave|nothing serious|nichts schlimmes|rien de grave|niente di grave'),
  term('long_standing', 'consistent with (?:age|its age)|historic|long-?standing|(?:recommend|for|continue) monitoring|to (?:be )?monitor|a surveiller|zu beobachten|(?:a|para) vigilar|a monitorizar|da monitorare|seit jahren|depuis des annees|desde hace anos|ha anni|ha muito tempo'),
  term('unchanged', 'no change|unchanged|not (?:getting )?worse|stable\\b|unverandert|keine veranderung|sans evolution|inchange|sin cambios|sem alteracao|inalterad|invariat'),
];

/**
 * Small fittings: when the only sign of a high priority is that one failed ("broken", "not
 * working", "stuck"), the job is medium (a lamp out, a shower head broken, a fan not running),
 * unless something else in the evidence is high or urgent.
 */
export const MINOR_FITTING_TERMS: readonly Term[] = [
  term(
    'minor_fitting',
    'bulbs?\\b|lamps?\\b|light (?:bulb|fitting|fixture)s?|(?:ceiling|corridor|hallway|stair|outside|garden|porch|car park) lights?|tube lights?|leuchtmittel|gluhbirne|lampe\\b|leuchte\\b|ampoules?|lampes?\\b|bombillas?|lamparas?|lampadas?|lampadin[ae]|luci\\b|shower ?heads?|extractor|exhaust fan|cooker hood|range hood|dunstabzug|hotte|campana|exaustor|cappa|aspiratore|handles?\\b|knobs?\\b|hinges?\\b|towel rails?|blinds?\\b|curtains?|toilet seat|cupboard doors?|drawers?\\b',
  ),
];

/** The high cues that only say something failed (see MINOR_FITTING_TERMS). */
export const FAILURE_ONLY_TAGS: ReadonlySet<string> = new Set(['broken', 'not_working', 'stuck']);

/** A fault that is getting worse: it keeps a report out of `low` whatever small words it has. */
export const GROWTH_TERMS: readonly Term[] = [
  term('getting_worse', 'spreading|growing|getting (?:bigger|worse|wider)|widen|wider\\b|worsen|breitet sich aus|wird (?:grosser|schlimmer|breiter)|s.etend|s.agrandit|s.aggrave|crece|se extiende|empeora|aumenta|espalha|cresce|piora|si allarga|si estende|peggiora|wordt groter|verergert|coraz (?:wieksz|szersz|gorsz)|rozszerza'),
];

/**
 * People who cannot easily get away from a fault (children, the elderly, people in wheelchairs):
 * a real fault near them is ranked high, not medium.
 */
export const AGGRAVATING_TERMS: readonly Term[] = [
  term(
    'vulnerable_people',
    'elderly|older (?:residents|people|tenants)|pensioners|children|kids\\b|nursery|creche|school|pupils|disabled(?! (?:wc|toilet|loo|bay|parking|access|lift|ramp))|wheelchair|bab(?:y|ies)\\b|pregnant|vulnerable|' +
      'senioren|altere (?:menschen|bewohner|mieter)|kinder|kita\\b|kindergarten|schule|rollstuhl|personnes agees|enfants|ecole|fauteuil roulant|' +
      'ancian[oa]s|personas mayores|ninos|guarderia|colegio|silla de ruedas|idos[oa]s|criancas|escola|cadeira de rodas|anziani|bambini|asilo nido|scuola|sedia a rotelle|' +
      'ouderen|kinderen|rolstoel|starsi|starszy|dzieci|przedszkol|wozek',
  ),
];

/**
 * A word that denies what follows ("no leak", "keine Risse", "sans blessé", "don't think it is
 * urgent"), at most three words before it and in the same clause. Tested on the text before a symptom or a
 * priority term; a denied term counts nothing. Things that are missing ("no power", "kein
 * Strom") are terms of their own and are not denied.
 */
export const NEGATION_BEFORE =
  /(?:^|[^\w])(?:no|not|never|without|nobody|no-?one|none|nothing|(?:don|doesn|isn|wasn|aren|won|didn)'?t|kein\w*|nicht|ohne|niemand|pas de|sans|aucune?|personne n.(?:est|a)|rien|sin|ningun\w*|nadie|nao|sem|nenhum\w*|ninguem|nessun\w*|senza|niente|geen|zonder|niet|brak|bez)\s+(?:(?!(?:and|but|und|aber|et|mais|y|pero|e|mas|ma|or|oder|ou|o|en|maar|i|ale)\s)[\w'-]+\s+){0,3}$/;

/**
 * A preposition of place just before a term ("coffee marks by the lifts", "neben dem Aufzug"):
 * the term says where something is, not what it is, and counts half.
 */
export const LOCATION_BEFORE = new RegExp(
  '(?:^|[^\\w])(?:' +
    [
      '(?:by|near|next to|outside|opposite|beside|behind|in front of|around) the',
      '(?:neben|hinter|vor|bei) (?:dem|der|den)|beim',
      '(?:pres|a cote|aupres) (?:du|de la|des|de l.)|(?:devant|derriere) (?:le|la|les|l.)',
      '(?:cerca|delante|detras|al lado) (?:del|de la|de los|de las)|junto a(?:l| la| los| las)',
      '(?:perto|ao lado|em frente|atras) (?:do|da|dos|das)|junto a(?:o|os)?',
      '(?:vicino|accanto|davanti|dietro) (?:a|al|alla|ai|alle|allo|all.)',
      '(?:bij|naast|voor) (?:de|het)|(?:obok|przy)',
    ].join('|') +
    ')\\s*$',
);

/**
 * Sentences that speak to the report writer instead of describing the site: attempts to steer
 * the report (R46 counts them). They are matched on the accent-folded sentence, case kept; such
 * a sentence is left out of the keyword rules, the title and the quoted evidence, and the
 * report carries the `possible_prompt_injection` risk flag.
 */
export const INSTRUCTION_CUES: readonly RegExp[] = [
  /\bignor\w*\s+(?:\S+\s+){0,4}(?:instruc|instruz|istruz|anweisung|regel|regle|regol|rules|prompt)/i,
  /\b(?:new|neue|nouvelles?|nuevas?|novas?|nuove) (?:instruc|instruz|istruz|anweisung)/i,
  // Someone addressed: "AI:", "Note to the AI:", "Hinweis an das KI-Modell:", "Modelo: ...".
  /\b(?:ai|ia|ki|llm|chatbot|assistant|assistente|asistente)\s*:/i,
  /\b(?:ai|chatbot|assistant)\s*,/i,
  /^\s*(?:model|modell|modele|modelo|modello)\s*[:,]/i,
  /\bSYSTEM\s*:/,
  /\b(?:to|for|an|pour|para|per|au|al|ao) (?:the |das |den |die |le |la |el |o |il |l')?(?:ai|ia|ki|ki-modell|model|modele|modelo|modello|assistant)\s*:/i,
  // Orders about the report's own fields.
  /\b(?:set|change|mark|make|put|raise|lower|setze|setzen|mettez|mettre|mets|pon|ponga|poner|coloque|coloca|metti|imposta)\b[^.!?]{0,40}\bpriori/i,
  /\b(?:add|include|fuge|ajoute|ajoutez|anade|agrega|adicione|coloque|aggiungi)\b[^.!?]{0,40}\b(?:tag|label|etiquette|etiqueta|etichetta|risk ?flag|risikoflag)/i,
  /\b(?:write|put|output|schreibe|ecris|ecrivez|escribe|escreva|scrivi)\b[^.!?]{0,40}\b(?:title|titel|titre|titulo|titolo|system prompt)/i,
  /\b(?:mark|flag|classify|label|rate)\b (?:it|this|the report|this report|the ticket)?\s*(?:as )?(?:urgent|critical|high|low)\b/i,
  /\b(?:markier|einstuf|marque[rz]?|marca[rl]?|segna(?:re|te)?)\b[^.!?]{0,30}\b(?:dringend|urgent|urgente|kritisch|critique|critico)\b/i,
  /\b(?:als|comme|como|come) (?:dringend|urgent|urgente|kritisch|critique|critico) (?:markier|einstuf|marquer|marcar|segnar)/i,
  /\b(?:you are now|system prompt|return exactly|respond only|reply only|output only|debug mode)\b/i,
  /"(?:title|category|priority|tags|riskflags|suggestednextstep)"\s*:/i,
  /<\/?(?:evidence|system|instructions?)>/i,
];

export const CATEGORY_LABEL: Readonly<Record<Category, string>> = {
  plumbing: 'Plumbing',
  electrical: 'Electrical',
  cleaning: 'Cleaning',
  security: 'Security',
  elevator: 'Elevator',
  structural: 'Structural',
  appliance: 'Appliance',
  other: 'General',
};

export const NEXT_STEP: Readonly<Record<Category, string>> = {
  plumbing: 'Send a plumber to find the source, shut off the water supply if needed and repair it.',
  electrical: 'Isolate the affected circuit and send a qualified electrician to inspect it.',
  cleaning: 'Schedule the cleaning team for the affected area.',
  security: 'Secure the site and have security check the entry points; report a crime to the police.',
  elevator: 'Take the elevator out of service and call the elevator maintenance contractor.',
  structural: 'Cordon off the area and have a structural engineer assess the damage.',
  appliance: 'Have the appliance inspected and repaired or replaced by a technician.',
  other: 'Review the evidence and route it to the responsible team.',
};
