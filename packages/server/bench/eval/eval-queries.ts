/**
 * The queries of our embedder evaluation set, each with the ids of the documents of
 * eval-docs.ts that answer it. Queries are phrased with other words than their answers where
 * possible (synonyms, paraphrases, symptoms instead of names), so keyword match is not enough.
 * A relevant document in another language counts: it does answer the question.
 */
export interface EvalQuery {
  id: string;
  text: string;
  relevant: readonly string[];
}

export const EVAL_QUERIES: readonly EvalQuery[] = [
  {
    id: 'q01',
    text: "Why does my app's RAM usage keep climbing until it crashes?",
    relevant: ['dev-01'],
  },
  {
    id: 'q02',
    text: 'Two threads update the same variable at once and the outcome is unpredictable',
    relevant: ['dev-03'],
  },
  {
    id: 'q03',
    text: 'function that calls itself too many times blows up',
    relevant: ['dev-06'],
  },
  { id: 'q04', text: 'find out which parts of my code make it slow', relevant: ['dev-08'] },
  {
    id: 'q05',
    text: 'speed up lookups on a huge table with millions of records',
    relevant: ['db-01'],
  },
  {
    id: 'q06',
    text: 'keep data correct if the machine dies in the middle of several updates',
    relevant: ['db-02', 'db-07'],
  },
  {
    id: 'q07',
    text: 'hacker typing malicious text into a web form to dump the whole user table',
    relevant: ['db-05'],
  },
  {
    id: 'q08',
    text: 'two operations stuck forever, each waiting on the other',
    relevant: ['db-06', 'dev-03'],
  },
  {
    id: 'q09',
    text: 'partition a very big collection of records over many servers',
    relevant: ['db-09'],
  },
  {
    id: 'q10',
    text: 'how does a website name get turned into a numeric address',
    relevant: ['net-01'],
  },
  {
    id: 'q11',
    text: 'distribute web traffic over several machines so none is overloaded',
    relevant: ['net-05'],
  },
  {
    id: 'q12',
    text: 'wireless internet is weak in the bedroom at the other end of the house',
    relevant: ['net-08'],
  },
  {
    id: 'q13',
    text: 'fake message asking me to enter my bank login details',
    relevant: ['sec-01'],
  },
  {
    id: 'q14',
    text: 'how should a site save user secrets so a breach does not reveal them',
    relevant: ['sec-02'],
  },
  {
    id: 'q15',
    text: 'extra code texted to my mobile when I sign in',
    relevant: ['sec-03'],
  },
  {
    id: 'q16',
    text: 'a virus locked all my documents and wants money to unlock them',
    relevant: ['sec-04', 'fr-05'],
  },
  {
    id: 'q17',
    text: 'bundle a program with its dependencies so it behaves the same on any machine',
    relevant: ['ops-01'],
  },
  {
    id: 'q18',
    text: 'get paged at night when the service starts failing',
    relevant: ['ops-04'],
  },
  {
    id: 'q19',
    text: 'release a new version and be able to roll back instantly',
    relevant: ['ops-06'],
  },
  {
    id: 'q20',
    text: 'model scores great on the examples it learned from but badly on fresh ones',
    relevant: ['ml-01'],
  },
  {
    id: 'q21',
    text: 'algorithm that sorts unlabelled items into groups of similar ones',
    relevant: ['ml-06'],
  },
  {
    id: 'q22',
    text: 'chatbots that write essays after reading enormous amounts of text',
    relevant: ['ml-09', 'ml-05'],
  },
  {
    id: 'q23',
    text: 'why does my PC boot so quickly since I replaced the storage',
    relevant: ['hw-01'],
  },
  {
    id: 'q24',
    text: 'the processor gets too hot and slows down',
    relevant: ['hw-02'],
  },
  {
    id: 'q25',
    text: 'make my notebook computer battery last more years',
    relevant: ['hw-05'],
  },
  {
    id: 'q26',
    text: 'the average salary is misleading because of a few billionaires',
    relevant: ['math-03'],
  },
  {
    id: 'q27',
    text: 'a link between two measurements is not proof of cause and effect',
    relevant: ['math-04'],
  },
  {
    id: 'q28',
    text: 'why is it hot in July and cold in January',
    relevant: ['phy-03'],
  },
  {
    id: 'q29',
    text: 'why does the sea go up and down along the shore every day',
    relevant: ['phy-05'],
  },
  {
    id: 'q30',
    text: 'how do green plants make food from sunshine',
    relevant: ['bio-01', 'fr-01'],
  },
  {
    id: 'q31',
    text: 'why pills against bacteria do not cure the flu',
    relevant: ['bio-04'],
  },
  {
    id: 'q32',
    text: 'keep my iron gate from turning orange and flaky',
    relevant: ['bio-07'],
  },
  {
    id: 'q33',
    text: 'how much rest do grown-ups need each night',
    relevant: ['med-01', 'es-05'],
  },
  {
    id: 'q34',
    text: 'lowering hypertension',
    relevant: ['med-02', 'de-05'],
  },
  {
    id: 'q35',
    text: 'pounding pain in the head with sickness, bright light hurts',
    relevant: ['med-04'],
  },
  {
    id: 'q36',
    text: 'twisted my foot while jogging, what should I do',
    relevant: ['med-06'],
  },
  {
    id: 'q37',
    text: 'why does my homemade loaf not rise',
    relevant: ['food-01', 'fr-03'],
  },
  {
    id: 'q38',
    text: 'how long can cooked dinner stay in the fridge',
    relevant: ['food-04'],
  },
  {
    id: 'q39',
    text: 'meat-free sources of protein',
    relevant: ['food-09'],
  },
  {
    id: 'q40',
    text: 'my potted indoor plants keep dying',
    relevant: ['gar-05'],
  },
  {
    id: 'q41',
    text: 'turn vegetable peelings into fertiliser',
    relevant: ['gar-02'],
  },
  {
    id: 'q42',
    text: 'My automobile failed to start this morning',
    relevant: ['car-01', 'es-03'],
  },
  {
    id: 'q43',
    text: 'high-pitched noise when I slow the car down',
    relevant: ['car-05'],
  },
  {
    id: 'q44',
    text: 'everything costs more and my salary buys less',
    relevant: ['fin-01'],
  },
  {
    id: 'q45',
    text: "don't put all your eggs in one basket when you invest",
    relevant: ['fin-03'],
  },
  {
    id: 'q46',
    text: 'first astronauts on the lunar surface',
    relevant: ['his-05'],
  },
  {
    id: 'q47',
    text: 'why is the planet getting warmer',
    relevant: ['geo-02', 'fr-04'],
  },
  {
    id: 'q48',
    text: 'what makes the ground shake violently',
    relevant: ['geo-03', 'es-04'],
  },
  {
    id: 'q49',
    text: 'avoid getting hurt when working out',
    relevant: ['spo-03'],
  },
  {
    id: 'q50',
    text: 'memorise foreign words efficiently',
    relevant: ['art-06'],
  },
  {
    id: 'q51',
    text: 'leaky faucet in the kitchen',
    relevant: ['home-01'],
  },
  {
    id: 'q52',
    text: 'my puppy destroys the couch when I am out',
    relevant: ['home-04', 'home-05'],
  },
  {
    id: 'q53',
    text: "I can't get myself to begin a big project",
    relevant: ['work-01'],
  },
  {
    id: 'q54',
    text: 'feeling drained and worn out by my job',
    relevant: ['work-05'],
  },
  // Queries in French, Spanish and German.
  {
    id: 'q55',
    text: 'comment protéger mes fichiers contre les logiciels qui chiffrent les données',
    relevant: ['fr-05', 'sec-04'],
  },
  {
    id: 'q56',
    text: 'pourquoi la température de la Terre augmente',
    relevant: ['fr-04', 'geo-02'],
  },
  {
    id: 'q57',
    text: 'mi auto no enciende cuando hace frío',
    relevant: ['es-03', 'car-01'],
  },
  {
    id: 'q58',
    text: 'qué alimentos protegen el corazón',
    relevant: ['es-02'],
  },
  {
    id: 'q59',
    text: 'Wie koche ich Spaghetti richtig',
    relevant: ['de-02', 'food-02'],
  },
  {
    id: 'q60',
    text: 'Autos mit Batterie statt Benzinmotor',
    relevant: ['de-03', 'car-04'],
  },
];
