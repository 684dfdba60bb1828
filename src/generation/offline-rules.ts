// Keyword rules of the offline generator (ruling R25). Plain data, read top to bottom: the
// first category in RULES wins a tie, so the list is ordered by how dangerous a miss would be.
import type { ReportResult } from './report-generator.ts';

type Category = ReportResult['category'];

export interface Term {
  /** The tag the term contributes. */
  readonly tag: string;
  readonly pattern: RegExp;
}

/** `stem` matches at a word start and lets inflections through ("leak" finds "leaking"). */
function term(tag: string, stem: string = tag): Term {
  return { tag, pattern: new RegExp(`\\b(?:${stem})`, 'i') };
}

export const RULES: readonly { readonly category: Exclude<Category, 'other'>; readonly terms: readonly Term[] }[] = [
  {
    category: 'elevator',
    terms: [term('elevator'), term('lift', 'lifts?\\b'), term('escalator'), term('trapped', 'trapped')],
  },
  {
    category: 'electrical',
    terms: [
      term('spark'),
      term('outlet'),
      term('socket'),
      term('power'),
      term('wiring', 'wir(?:e|es|ing)\\b'),
      term('breaker'),
      term('fuse'),
      term('circuit'),
      term('electrical', 'electric'),
      term('shock'),
    ],
  },
  {
    category: 'plumbing',
    terms: [
      term('leak'),
      term('water'),
      term('pipe'),
      term('drain'),
      term('clog'),
      term('toilet'),
      term('faucet'),
      term('tap', 'taps?\\b'),
      term('sink'),
      term('flood'),
      term('sewage'),
      term('burst'),
    ],
  },
  {
    category: 'security',
    terms: [
      term('broken_window', 'broken (?:window|glass|pane)'),
      term('lock', 'lock(?:s|ed|ing)?\\b'),
      term('intruder'),
      term('break_in', 'break-?in|broke in'),
      term('burglary', 'burglar'),
      term('theft', 'theft|stolen'),
      term('alarm'),
      term('cctv'),
      term('trespass'),
      term('vandalism', 'vandal'),
    ],
  },
  {
    category: 'structural',
    terms: [
      term('crack'),
      term('wall', 'walls?\\b'),
      term('beam'),
      term('ceiling'),
      term('foundation'),
      term('collapse'),
      term('roof'),
      term('column'),
      term('subsidence'),
    ],
  },
  {
    category: 'appliance',
    terms: [
      term('fridge', 'fridge|refrigerator'),
      term('oven'),
      term('stove'),
      term('dishwasher'),
      term('washing_machine', 'washing machine|washer'),
      term('dryer'),
      term('microwave'),
      term('boiler'),
      term('heater'),
      term('hvac', 'hvac|air condition'),
    ],
  },
  {
    category: 'cleaning',
    terms: [
      term('stain'),
      term('spill'),
      term('dirty', 'dirt'),
      term('trash', 'trash|garbage|rubbish|litter'),
      term('mold', 'mou?ld'),
      term('odor', 'odou?r|smell'),
      term('graffiti'),
      term('cleaning', 'clean'),
    ],
  },
];

/** Any of these makes the report urgent and raises the `urgent_keywords` risk flag. */
export const URGENT_TERMS: readonly Term[] = [
  term('fire'),
  term('smoke'),
  term('spark'),
  term('gas_smell', 'gas (?:leak|smell)|smell of gas'),
  term('flood'),
  term('trapped'),
  term('injury', 'injur'),
  term('emergency'),
  term('urgent'),
  term('danger'),
  term('collapse'),
  term('electric_shock', 'electric shock|electrocut'),
  term('burst'),
];

export const HIGH_TERMS: readonly Term[] = [
  term('leak'),
  term('broken'),
  term('intruder'),
  term('break_in', 'break-?in|broke in'),
  term('no_power', 'no power|power (?:cut|outage)|outage'),
  term('stuck'),
  term('not_working', 'not working|out of order|does not work|doesn\'t work'),
  term('exposed_wire', 'exposed wir'),
  term('crack'),
];

export const LOW_TERMS: readonly Term[] = [
  term('minor'),
  term('cosmetic'),
  term('scuff'),
  term('routine'),
  term('scheduled'),
  term('slight'),
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
