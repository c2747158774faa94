/**
 * The paraphrase relevance set: ten topics of three short passages each, and two questions per
 * topic written with other words than its passages (what a person asks without knowing the
 * text). A question's relevant documents are its topic's three passages: "the right topic
 * first" is MRR@10 = 1. The README passages (readme-docs.json) stand around them as
 * distractors, so that a question's stray keyword meets many other passages, as in a real store.
 */
import type { EvalSet } from '../eval/evaluate.js';
import { loadReadmeCorpus } from './readme-set.js';

const TOPICS: Record<string, { docs: string[]; questions: string[] }> = {
  bees: {
    docs: [
      'Honey bees gather nectar from flowers and store it in wax combs inside the hive.',
      'A colony has one queen that lays eggs, thousands of female workers and a few drones.',
      'Foragers perform a waggle dance to tell their sisters where the best flowers are.',
    ],
    questions: [
      'how do these buzzing insects tell each other where food is',
      'which insect makes the sweet stuff people spread on toast',
    ],
  },
  volcano: {
    docs: [
      'Magma rises through the crust and erupts as lava, ash and gas from a volcano.',
      'Pyroclastic flows are fast avalanches of hot rock fragments and gas down a mountain side.',
      'Iceland sits on a mid-ocean ridge where eruptions are frequent.',
    ],
    questions: [
      'molten rock bursting out of a mountain',
      'what makes a fiery peak explode and cover towns in dust',
    ],
  },
  sleep: {
    docs: [
      'Adults need seven to nine hours of rest each night to stay healthy.',
      'During REM phases the brain is active and most dreaming happens.',
      'Insomnia is trouble falling or staying asleep, often linked to stress or caffeine.',
    ],
    questions: [
      'I keep lying awake at night and cannot drift off',
      'how long should a grown-up stay in bed to feel rested',
    ],
  },
  bread: {
    docs: [
      'Yeast ferments the sugars in dough, releasing carbon dioxide that makes the loaf rise.',
      'Kneading develops gluten, the elastic protein network that traps gas in the dough.',
      'Sourdough uses a starter of wild yeasts and lactic bacteria instead of packaged yeast.',
    ],
    questions: [
      'why does my homemade loaf come out flat and dense',
      'what makes baked dough puff up in the oven',
    ],
  },
  tides: {
    docs: [
      "The Moon's gravity pulls the oceans, raising two bulges of water on opposite sides of the Earth.",
      'Spring tides, with the largest range, happen when the Sun and Moon line up.',
      'Coasts see high water roughly twice a day as the planet turns under the bulges.',
    ],
    questions: [
      'why does the sea come in and go out twice daily',
      'what pulls the ocean water up and down on beaches',
    ],
  },
  vaccines: {
    docs: [
      'A vaccine trains the immune system to recognise a germ without causing the disease.',
      'Booster shots renew protection when antibody levels fall over time.',
      'Herd immunity protects people who cannot be immunised when most others are.',
    ],
    questions: [
      'how does a jab stop you catching an illness',
      'why do I need another injection years after the first one',
    ],
  },
  chess: {
    docs: [
      'The king may castle with a rook if neither piece has moved and no square it crosses is attacked.',
      'A pawn reaching the last rank is promoted, usually to a queen.',
      'Checkmate ends the game when the king is attacked and has no legal escape.',
    ],
    questions: [
      'how do you win at the board game with knights and bishops',
      'what happens when a foot soldier reaches the far side',
    ],
  },
  photosynthesis: {
    docs: [
      'Plants capture sunlight with chlorophyll and turn carbon dioxide and water into sugar.',
      'Oxygen is released as a by-product when leaves split water molecules.',
      'The Calvin cycle fixes carbon into glucose inside the chloroplast stroma.',
    ],
    questions: [
      'how do green leaves make food from light',
      'where does the air we breathe come from in a forest',
    ],
  },
  inflation: {
    docs: [
      'Inflation is the general rise of prices, which lowers what a unit of money can buy.',
      'Central banks raise interest rates to slow borrowing and cool price growth.',
      'Wages that lag behind price increases reduce real household income.',
    ],
    questions: [
      'why does my shopping cost more every year',
      'what can a central bank do when everything gets more expensive',
    ],
  },
  backups: {
    docs: [
      'Keep three copies of your data on two kinds of media, one of them off site.',
      'Test restores regularly: a copy you cannot read back is not a copy.',
      'Ransomware can encrypt attached drives, so keep one copy disconnected.',
    ],
    questions: [
      'how do I make sure I never lose my files if the disk dies',
      'protecting documents against malware that locks them for a fee',
    ],
  },
};

export function loadParaphraseSet(): EvalSet {
  const docs = Object.entries(TOPICS).flatMap(([topic, t]) =>
    t.docs.map((text, i) => ({ id: `${topic}-${i + 1}`, text })),
  );
  const queries = Object.entries(TOPICS).flatMap(([topic, t]) =>
    t.questions.map((text, i) => ({
      id: `${topic}-q${i + 1}`,
      text,
      relevant: t.docs.map((_d, j) => `${topic}-${j + 1}`),
    })),
  );
  const distractors = loadReadmeCorpus().docs.map((d) => ({ id: d.id, text: d.text }));
  return { docs: [...docs, ...distractors], queries };
}
