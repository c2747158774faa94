/**
 * Curated theme lexicons and prototype descriptions (written for ADAM). Lexicon entries are
 * folded (lower case, no accents); `word*` matches any word starting with `word`, German
 * compounds included ("quant*" matches "Quantenmechanik").
 */

export const THEMES = ['science', 'technology', 'philosophy', 'general'] as const;
export type Theme = (typeof THEMES)[number];

export const THEME_LEXICON: Record<Theme, string> = {
  science: `
physic* physik* fisica* scien* wissenschaft* ciencia* chemi* chimi* quimic* biolog* astronom*
astrophys* geolog* ecolog* genet* genom* molecul* molekul* atom* particl* particule* particula*
partikel* electron* elektron* proton* neutron* photon* quant* relativit* relativitat* gravit*
energ* mass matter materie materia matiere force kraft* fuerza wave waves welle* onde ondes
frequenc* frequenz* spectr* spektr* laborat* experiment* hypothes* hypoth* theor* teoria*
measur* messung* medir medicion* mesur* observ* beobacht* cell cells cellule* zelle* celula*
protein* protei* enzym* enzim* bacteri* bakteri* virus* evolution* species especie* espece*
organism* dna adn chromosom* cromosom* mutation* climat* klima* fossil* mineral* magma* volcan*
vulkan* planet* galax* star stars stern* estrella* etoile* universe univers* cosmo* kosmo*
orbit* telescop* teleskop* isotop* radioact* radioakt* nuclear nuklear* nucleaire* equation*
gleichung* ecuacion* thermodyn* entrop* velocity acceleration mathemat* matemat* physicist*
chemist* biologist* neuron* photosynth* reaction* reakt* reaccion* kinetic* optic* optik*
superconduct* semiconduct* entangl* superposition* schrodinger* einstein newton* planck*
heisenberg* curie* darwin*
`,
  technology: `
technolog* technik* techniq* tecnolog* comput* ordinateur* computadora* rechner* software
logiciel* programm* program* codigo* code coding coder* compil* kompil* algorithm* algorith*
algoritm* data donnee* datos daten* database* datenbank* internet* web website* online* network*
netzwerk* reseau* redes server* serveur* servidor* cloud* digital* numerique* electroni*
elektroni* robot* automat* artificial* artificiel* kunstlich* machine* maschin* maquina*
engineer* ingenieur* ingenier* device* appareil* dispositiv* gerat* smartphone* app apps
processor* prozessor* processeur* procesador* chip chips semiconductor* transistor* hardware*
storage stockage encrypt* chiffrement* cifrad* verschlussel* cyber* linux* java* javascript*
python* browser* api protocol* protokoll* protocole* protocolo* bandwidth* latenc* pixel*
sensor* capteur* laser* battery batteries akku* telecom* telefon* telephon* satellit* innovat*
startup* gadget* interface* schnittstelle* debug* syntax* virtual* virtuel* betriebssystem*
neural* neuronal* ia ki ai informati* informatik*
`,
  philosophy: `
philosoph* filosof* ethic* ethik* ethique* etica* moral* metaphys* metaphysi* metafisic*
epistem* ontolog* logic* logik* logique* logica* reason reasons reasoning raison* razon*
vernunft* virtue* virtu* tugend* justice justic* gerechtigkeit* justicia* truth* verite* verdad*
wahrheit* wisdom* sagesse* sabiduria* weisheit* conscious* conscien* bewusstsein* conciencia*
mind esprit* geist* mente soul* ame alma seele* existence existential* existenz* existencia*
freedom* liberte* libertad* freiheit* volonte* voluntad* wille* duty duties devoir deber
pflicht* evil* bose* value values valeur* valor* wert* meaning* sentido* sinn* aristot* plato
platon* socrat* sokrat* kant* hegel* nietzsch* descartes* spinoza* hume locke rousseau* sartre*
heidegger* wittgenstein* mill utilitar* stoic* stoik* estoic* empiric* empiris* rational*
rationa* idealis* materialis* dialect* dialekt* phenomenolog* phanomenolog* fenomenolog*
argument* concept* konzept* concepto* belief* croyance* creencia* glaube* knowledge
connaissance* conocimiento* erkenntnis* doctrin* lehre* thinker* penseur* pensador* denker*
reflexion* reflection* principle* prinzip* principio* principe* happiness bonheur* felicidad*
gluck* responsib* responsab* verantwort* metaethic* normative* normativ* deontolog*
consequential* dignit* aesthet* asthet* estetic* esthet*
`,
  general: `
cook* cuisine* cocina* kochen kochrezept* recipe* recette* receta* rezept* food nourriture*
comida* essen dish dishes plat plats meal* repas kitchen* bake* baking baker* boulang* backen*
bread* brot* cheese* fromage* queso* kase* rice riz arroz* reis butter* beurre* mantequilla*
restaurant* wine* vin vino* wein* sport* football* futbol* fussball* equipe* mannschaft* player*
joueur* jugador* spieler* travel* voyage* viaje* reise* touris* holiday* vacance* vacacion*
urlaub* music* musique* musica* musik* song* chanson* cancion* film* movie* cinema* kino*
fashion* moda garden* jardin* garten* family* famille* familia* familie* child* enfant* nino*
house* maison* casa* haus* city* ville* ciudad* stadt* village* dorf* pueblo* festival* fete*
fiesta* fest tradition* tradicion* history* histoire* historia* geschicht* king* roi rey konig*
queen* reine* reina* war guerre* guerra* krieg* castle* chateau* castillo* burg palace* palais*
palacio* palast* museum* musee* museo* weather* meteo* wetter* shop* magasin* tienda* market*
marche mercado* markt* price* prix precio* preis* dance* danse* baile* tanz* art kunst* arte
painting* peinture* pintura* gemalde* novel* roman* novela* book* livre* libro* buch*
`,
};

/**
 * Prototype descriptions per theme, embedded once per embed function; a snippet's similarity
 * to a theme is its best cosine with that theme's prototypes. Four languages so that a
 * multilingual embedder finds a prototype in the snippet's own language.
 */
export const THEME_PROTOTYPES: Record<Theme, string[]> = {
  science: [
    'Physics, chemistry, biology and astronomy: experiments and measurements on matter, energy, atoms, particles, cells, species, planets and the laws of nature studied by scientists.',
    'A scientific theory explains natural phenomena with equations and hypotheses tested in the laboratory, such as quantum mechanics, relativity, evolution and genetics.',
    'Earth sciences study geology, volcanoes, magma, earthquakes, tectonic plates, oceans, climate and ecosystems.',
    'La physique, la chimie et la biologie étudient la matière, l’énergie, les atomes, les cellules et l’univers par l’expérience et la mesure.',
    'La física, la química y la biología estudian la materia, la energía, los átomos, las células y el universo mediante experimentos.',
    'Physik, Chemie und Biologie erforschen Materie, Energie, Atome, Zellen und das Universum durch Experimente und Messungen.',
  ],
  technology: [
    'Computers, software and programming: source code, compilers, algorithms, databases, networks, servers, the internet and applications built by engineers.',
    'Technology and engineering: electronic devices, processors, smartphones, robots, artificial intelligence, digital systems and telecommunications.',
    'L’informatique et la technologie: logiciels, programmation, ordinateurs, réseaux, internet, données et intelligence artificielle.',
    'La informática y la tecnología: software, programación, ordenadores, redes, internet, datos e inteligencia artificial.',
    'Informatik und Technik: Software, Programmierung, Computer, Netzwerke, Internet, Daten und künstliche Intelligenz.',
  ],
  philosophy: [
    'Philosophy and ethics: questions of right and wrong, virtue, justice, moral duty, free will, truth, knowledge and the meaning of life, as argued by Aristotle, Kant and Mill.',
    'Metaphysics, epistemology and logic examine being, mind, consciousness, reason, belief and the nature of moral values.',
    'La philosophie et la morale: la vertu, la justice, le devoir, la liberté, la vérité, la conscience et le sens de l’existence.',
    'La filosofía y la ética: la virtud, la justicia, el deber, la libertad, la verdad, la conciencia y el sentido de la existencia.',
    'Philosophie und Ethik: Tugend, Gerechtigkeit, Pflicht, Freiheit, Wahrheit, Bewusstsein und der Sinn des Lebens.',
  ],
  general: [
    'Everyday life: cooking recipes, food and drink, restaurants, travel, holidays, sport, music, films, fashion, family, home and gardening.',
    'History, geography and culture: cities, villages, castles, kings and wars, festivals, traditions, museums, art and famous people.',
    'Food and cooking: a dish of rice, pasta or bread baked in the oven, cheese, butter, wine, recipes from the kitchen of a restaurant.',
    'La vie quotidienne: cuisine, recettes, voyages, sport, musique, cinéma, famille, histoire, villes et traditions.',
    'La vida cotidiana: cocina, recetas, viajes, deporte, música, cine, familia, historia, ciudades y tradiciones.',
    'Der Alltag: Kochen, Rezepte, Reisen, Sport, Musik, Kino, Familie, Geschichte, Städte und Traditionen.',
  ],
};
