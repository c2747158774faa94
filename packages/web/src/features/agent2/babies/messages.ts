/**
 * Texts of the Digital Babies Laboratory (spec 001 §2.4: the screen is French). The spec names
 * the elements, not their words: these labels are ours.
 */
import type { BabyStatus, DnaTrait, TestType } from '../lab/types';

/** French agreement: 0 and 1 take the singular. */
const plural = (n: number, one: string, many: string) => `${n} ${n > 1 ? many : one}`;

export const BABIES_MESSAGES = {
  title: 'Laboratoire des Bébés Numériques',
  description:
    'Une population de bébés numériques vit des expériences, est évaluée et se reproduit : les plus aptes transmettent leur ADN à la génération suivante.',
  generation: 'Génération',
  population: 'Population',
  populationHint: (living: number, archived: number) =>
    `${living} vivants · ${plural(archived, 'archivé', 'archivés')}`,
  evolutionActive: 'Évolution active',
  evolutionPaused: 'Évolution en pause',
  evolutionToggle: 'Évolution',

  kpiRegion: 'Indicateurs du laboratoire',
  kpiPopulation: 'Population vivante',
  kpiPopulationHint: (active: number, testing: number) =>
    `${plural(active, 'actif', 'actifs')} · ${testing} en test`,
  kpiNextGeneration: 'Prochaine génération',
  kpiNextGenerationValue: (seconds: number) => `dans ${seconds} s`,
  kpiNextGenerationHint: (seconds: number, running: boolean) =>
    running ? `une nouvelle toutes les ${seconds} s` : 'en attente : évolution en pause',
  kpiBestFitness: 'Meilleure fitness',
  kpiBestFitnessHint: (id: string) => `bébé ${id}`,
  kpiMeanFitness: 'Fitness moyenne',
  kpiMeanFitnessHint: 'population vivante',
  kpiSuccessRate: 'Taux de réussite',
  kpiSuccessRateHint: (successes: number, total: number) =>
    `${plural(successes, 'réussite', 'réussites')} sur ${total}`,
  kpiExperiences: 'Expériences menées',
  kpiExperiencesHint: 'depuis la première génération',
  kpiCapitalized: 'Mémoires capitalisées',
  kpiCapitalizedHint: 'depuis la première génération',
  kpiArchived: 'Bébés archivés',
  kpiArchivedHint: (born: number) => `${plural(born, 'né', 'nés')} au total`,

  viewsLabel: 'Vue',
  viewNetwork: 'Réseau neuronal',
  viewGrid: 'Grille',
  viewTimeline: 'Chronologie',

  filterGeneration: 'Génération',
  allGenerations: 'Toutes les générations',
  generationOption: (n: number) => `Génération ${n}`,
  filterMinFitness: 'Fitness minimale',
  showArchived: 'Afficher les archivés',
  shownCount: (shown: number, total: number) => `${plural(shown, 'bébé', 'bébés')} sur ${total}`,
  noBabies: 'Aucun bébé ne correspond aux filtres.',
  emptyLab: 'Le laboratoire est vide : la population apparaît au premier tick.',

  networkCap: (max: number, total: number) =>
    `Les ${max} bébés les plus aptes sur ${total} sont affichés.`,
  networkLegend:
    'Une colonne par génération ; la taille d’un nœud suit sa fitness, un lien relie un parent à son enfant, un cercle pointillé signale un bébé en test.',
  timelineLegend:
    'Une bande par génération ; chaque trait va de la naissance du bébé à maintenant (à sa dernière expérience s’il est archivé), ses expériences en points : vert une réussite, rouge un échec.',
  timelineCap: (shown: number) => `Les ${shown} générations les plus récentes sont affichées.`,
  timelineAxis: 'Temps de simulation',
  showMore: (n: number) => `Afficher ${n} de plus`,

  experiencesCount: (n: number) => plural(n, 'expérience', 'expériences'),
  baby: (id: string) => `Bébé ${id}`,
  close: 'Fermer',
  parents: 'Parents',
  noParents: 'population initiale',
  born: 'Né à',
  at: (time: string) => `à ${time}`,
  fitness: 'Fitness',
  dna: 'ADN',
  dnaRadar: 'Radar de l’ADN',
  thisBaby: 'Ce bébé',
  populationMean: 'Moyenne de la population',
  traitBars: 'Traits',
  mutationRange: '0,10–0,20',
  experienceAnalysis: 'Analyse des expériences',
  successes: 'Réussites',
  capitalized: 'Capitalisées',
  themes: 'Répartition des thèmes',
  lastExperiences: 'Cinq dernières expériences',
  noExperiences: 'Aucune expérience pour l’instant.',
  success: 'Réussie',
  failure: 'Échouée',
  capitalizedBadge: 'Capitalisée',
  score: 'Score',
  difficulty: 'Difficulté',
  originality: 'Originalité',
  fromSnippet: (id: number) => `Extrait n° ${id}`,

  explainTitle: 'Comment fonctionne le laboratoire',
  explainIntro:
    'Ce laboratoire simule, dans votre navigateur, l’évolution de bébés numériques : de petites intelligences dont l’ADN décide comment elles abordent une expérience. Rien n’est envoyé au serveur ; les thèmes des expériences viennent des vrais extraits quand il y en a.',
} as const;

/** The rules shown in the explanatory panel, built from the simulation's constants. */
export function explainRules(c: {
  initialPopulation: number;
  initialExperiences: number;
  tickSeconds: number;
  experienceChance: number;
  successScore: number;
  capitalizeScore: number;
  capitalizeChance: number;
  breedingShare: number;
  children: number;
  survivors: number;
  mutationMin: number;
  mutationMax: number;
  generationSeconds: number;
  networkMax: number;
}): string[] {
  const pct = (x: number) => `${Math.round(x * 100)} %`;
  const dec = (x: number) => x.toFixed(2).replace('.', ',');
  return [
    `La population initiale compte ${c.initialPopulation} bébés, qui ont déjà vécu ${c.initialExperiences} expériences chacun.`,
    `Toutes les ${c.tickSeconds} s, tant que l’évolution est active, chaque bébé actif a ${pct(c.experienceChance)} de chances de passer une expérience et devient « en test » ; les autres redeviennent actifs.`,
    `Une expérience est réussie quand son score dépasse ${dec(c.successScore)} ; elle est capitalisée en mémoire quand il dépasse ${dec(c.capitalizeScore)}, avec ${pct(c.capitalizeChance)} de chances.`,
    'Fitness = 40 % taux de réussite + 40 % score moyen + 20 % part d’expériences capitalisées.',
    `Toutes les ${c.generationSeconds} s, les ${pct(c.breedingShare)} les plus aptes se reproduisent : ${c.children} enfants forment la nouvelle génération.`,
    `La population garde les ${c.survivors} meilleurs et les ${c.children} nouveau-nés ; les autres sont archivés.`,
    `L’ADN d’un enfant mêle celui de ses parents, avec un taux de mutation compris entre ${dec(c.mutationMin)} et ${dec(c.mutationMax)}.`,
    `La vue réseau montre au plus ${c.networkMax} bébés, les plus aptes.`,
  ];
}

export const TRAIT_LABELS: Record<DnaTrait, string> = {
  creativity: 'Créativité',
  analytical: 'Esprit analytique',
  empathy: 'Empathie',
  curiosity: 'Curiosité',
  persistence: 'Persévérance',
  emotionalDepth: 'Profondeur émotionnelle',
  innovationTendency: 'Tendance à innover',
  mutationRate: 'Taux de mutation',
};

/** Short names for the radar's axes, where the full ones would be cut. */
export const RADAR_LABELS: Record<DnaTrait, string> = {
  creativity: 'Créativité',
  analytical: 'Analyse',
  empathy: 'Empathie',
  curiosity: 'Curiosité',
  persistence: 'Persévérance',
  emotionalDepth: 'Émotion',
  innovationTendency: 'Innovation',
  mutationRate: 'Mutation',
};

export const STATUS_LABELS: Record<BabyStatus, string> = {
  active: 'Actif',
  testing: 'En test',
  archived: 'Archivé',
};

export const TEST_TYPE_LABELS: Record<TestType, string> = {
  creative_writing: 'Écriture créative',
  logical_reasoning: 'Raisonnement logique',
  emotional_understanding: 'Compréhension émotionnelle',
  exploration: 'Exploration',
  problem_solving: 'Résolution de problèmes',
};

const THEME_LABELS: Record<string, string> = {
  science: 'Science',
  technology: 'Technologie',
  philosophy: 'Philosophie',
  general: 'Général',
};

/** A theme the server adds later shows under its own name. */
export const themeLabel = (theme: string) => THEME_LABELS[theme] ?? theme;
