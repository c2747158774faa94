/**
 * Emotion lexicon, curated for ADAM (our own work, same licence as the project). Plutchik's
 * eight basic emotions; English is the largest list, French, Spanish and German carry the
 * common words. `word*` matches every word starting with `word` and the longest match wins,
 * so "hoffnungslos*" (sadness) beats "hoff*" (anticipation). Entries are folded on load
 * (accents removed, lower case). A word may sit under several emotions, as in the NRC lexicon,
 * whose research-only licence keeps it out of this project.
 */

import type { Emotion } from '@adam/contracts';

// The eight emotions are a wire type too (analytics): declared once, in the contracts.
export { EMOTIONS, type Emotion } from '@adam/contracts/constants';

export const EMOTION_LEXICON: Record<string, Record<Emotion, string>> = {
  en: {
    joy: `
happy happier happiest happily happiness joy joys joyful* joyous* enjoy* glad gladly gladness
delight* cheer cheered cheerful* cheering cheers cheery elated elation euphori* ecsta* bliss
blissful* fun funny laugh* smile smiled smiles smiling grin grinned grinning grins pleasant*
pleasure* pleased pleasing celebrat* festive festivit* jubil* triumph* wonderful* marvel*
splendid magnificent* glorious glory love loved lovely loving lover lovers adore adored adoring
adorable beloved affection* heartwarming contented contentment satisf* gratif* grateful*
gratitude thankful* thanks bless blessed blessing* paradise sunshine sunny merry merriment
playful* amuse amused amusing amusement* entertain* exuberan* exhilarat* thrill* excit*
fantastic terrific awesome beautiful* beauty charming charm sweet sweetheart treasure* success*
succeed* victor* victory victories win wins winning winner* reward* prize* proud pride honour*
honor* hope hopeful* relief relieved peaceful* serene serenity tranquil* harmon* friend friends
friendly friendship* kindness gentle comfort* cozy cosy heaven* radiant vibrant lively rejoic*
giggl* chuckl* hilarious humor* humour* glee gleeful* jolly jovial carefree upbeat optimis*
enthusias* passion* zest* feast* holiday* vacation* dancing danced sing singing sang song songs
birthday* wedding* romance romantic* kiss kissed kisses kissing hug hugged hugs hugging embrac*
tender* darling fortunate* fortune lucky delicious tasty nice excellen* superb* brilliant*
perfect* admir* applaud* applause bravo congratulat* accomplish* achiev* fulfil* welcome*
welcoming hospitab* generos* generous* sunlit blossom* bloom* freedom
`,
    trust: `
trust trusted trusting trusts trustworth* trusty reliab* rely relied relies reliance dependab*
honest* honesty integrity loyal* faithful* faith believe* believing belief* confiden* sincer*
genuine* authentic* credib* truth truthful* respect* admir* esteem* reput* safe safely safety
secure secured securing security protect* guardian* shelter* care cares caring cared support*
helpful* friend friends friendly friendship* ally allies alliance* partner* cooperat*
collaborat* agree agreed agreement* promise* pledge* oath vow vows vowed devot* competen*
expert* experienced skilled wise wisdom mentor* teacher* doctor* nurse* lawful legitimate*
certainty assur* reassur* guarantee* warrant* verified proven accurate* fair fairly fairness
justice equality steady steadfast calm calmly parents harmony unity mother* father* brother*
sister* neighbour* neighbor* hospitab* patience patiently humble humility modest* benevolen*
compassion* empath* console consoled consoling consolation comfort* cherish* heal healed healing
cure cured cures sanctuary refuge fidelity allegiance endorse* approv* recommend* counsel*
advis*
`,
    fear: `
fear feared fearing fears fearful* afraid scare scared scares scaring scary frighten* fright*
terrified terrifies terrify terrifying terror* horror* horrif* horrible horribly dread* panic*
anxi* nervous* worry worried worries worrying apprehens* alarm* threat* danger* peril* hazard*
risk risks risky menac* intimidat* attack* assault* violen* warfare bomb bombs bombed bombing
bombard* explosion* explosive* exploded weapon* gun guns gunfire shoot shooting shootings shot
kill killed killer* killing* murder* deadly death deaths die dying disaster* catastroph*
calamit* crisis crises emergenc* tremble* trembl* shiver* shudder* scream* shriek* nightmare*
haunt* ghost* monster* demon* evil sinister ominous eerie creepy spooky darkness insecur* unsafe
vulnerab* helpless* powerless desperat* hysteri* phobi* paranoi* suspicio* uneas* tense tension*
stress* distress* flee fled fleeing doom doomed collapse* earthquake* flood* storm storms stormy
hurricane* tornado* tsunami* wildfire* epidemic* pandemic* plague* disease* illness* cancer*
infection* poison* toxic* injur* wound wounded wounds bleed* victim* casualt* hostage* kidnap*
abduct* crime* criminal* cruel* brutal* savage* ferocious beast* predator* prey shock* startl*
cower* timid* coward* doubt* uncertain* precarious volatile grave trauma* avalanche* eruption*
invasion* invade* invader* siege* tyrant* persecut* torture* hunted lurk*
`,
    surprise: `
surpris* astonish* amaz* astound* stun stunned stunning startl* shock* sudden suddenly
unexpected* unforeseen unanticipated unpredictab* wonder wondered wonders wonderful* marvel*
miracle* miraculous* incredib* unbeliev* extraordinar* remarkab* dramatic* abrupt* bewild*
baffl* perplex* puzzl* flabbergast* dumbfound* speechless awe awed awesome awestruck
breathtaking gasp gasped gasps gasping whoa wow revelation* reveal* discover* unusual* strange*
bizarre weird* mysterious* mystery mysteries secret* twist* sensation* spectacular* unprecedent*
erupt* burst* jolt* thunderstruck bombshell epiphan* serendip* fluke coincidence* lottery
jackpot gift gifts astounding suddenness unheard overwhelm* outburst* ambush* curious* curiosity
wonderment unannounced gobsmacked agape agog aghast staggering staggered jarring unawares
unforeseeable peculiar* curiously oddly odd outlandish freak freakish phenomenal prodigious
stupendous wondrous unimaginable inconceivable implausible improbable unthinkable mindblowing
dazzl* dazed daze reeling confound* mystif* enigma* inexplicab* uncanny anomal* unveil* surreal
spontaneous* impromptu trick* prank* magic* magician* conjur* fireworks exclaim* exclamation*
blurt* unplanned accidental* unintended
`,
    sadness: `
sad sadly sadness sadden* unhappy* unhappiness sorrow* grief griev* mourn* weep* wept cry crying
cried cries tears tearful* sob sobbed sobbing sobs lament* melanchol* depress* despair*
despondent* gloom* miser* heartbreak* heartbroken heartache* lonely loneliness lonesome alone
isolat* abandon* forlorn desolat* bereave* bereft widow* orphan* funeral* burial* buried tomb*
grave graves cemetery death deaths died dies dying dead deceased demise loss losses lost lose
losing fail failed failing failure* defeat* regret* remorse* sorry pity pitiful tragic* tragedy
tragedies misfortune* unfortunate* suffer* pain painful* hurt hurts hurting hurtful anguish*
agony agoni* torment* woe woeful wretch* hopeless* helpless* disappoint* dismal bleak* grim
somber sombre dreary downcast dejected* downhearted homesick* nostalg* longing sigh sighed sighs
sighing poverty starv* famine* destitute* homeless* ruin ruins ruined farewell* goodbye*
divorce* exile* neglect* rejected rejection* humiliat* shame* ashamed guilt* unloved unwanted
worthless* elegy elegies requiem dirge suicid* slain perish* extinct* weary grieving
inconsolable* mourner* casualt* victim* illness* disease* cancer*
`,
    anticipation: `
anticipat* expect* await* hope hoped hopes hopeful* hoping eager* prepar* future* soon upcoming
forthcoming imminent impending prospect* predict* forecast* foresee* promise* tomorrow destin*
goal goals aspir* ambition* ambitious* dream dreams dreamed dreaming dreamt wish wished wishes
wishing longing yearn* crave* craving* desire* intend* intention* pursue* pursuit* quest* seek
seeking ready readiness suspense* curious* curiosity excit* thrill* countdown* deadline* launch*
debut* premiere* arrival* arrive arriving wait waited waiting waits opportunit* gamble* lottery
optimis* prophe* omen* horizon* preview* anticipated impatien* eventual* someday upcoming
prepare shortly nearing brink expectant* expectancy anticipatory hopefully intent foretell*
foreshadow* herald* harbinger* lookout watchful* vigil* poised primed verge brink nearing
shortly beckon* invitation* appointment* rendezvous reunion* aim aims aiming itching restless*
tenterhooks bated wishful* pray prayed prayer* promising pending speculat* rehears* betting bets
wager* raffle* cliffhanger* teaser* announce* dawn dawning awakening inaugura*
`,
    anger: `
anger angry angrily angered rage raged rages raging furious* fury wrath* irate irritat* annoy*
frustrat* resent* hostil* hate hated hates hating hatred outrage* indignant* indignation livid
mad seething fuming enrag* incens* infuriat* exasperat* aggravat* provok* provoc* aggress*
violen* attack* fight fights fighting fought battle* combat* quarrel* dispute* conflict* clash*
feud* vendetta* revenge* vengeance* vengeful* retaliat* punish* condemn* denounc* protest* riot*
rebel* revolt* insult* offend* offended offensive* abuse* abusive bully* bullied harass* threat*
curse* cursed damn* shout* yell* snarl* growl* slam* smash* destroy* destruct* brutal* cruel*
savage* vicious* spite* bitter* grudge* jealous* envy envious betray* unfair* unjust* injustice*
oppress* tyran* scorn* contempt* disdain* belliger* blame* accus* grievance* complain* tantrum*
mock* ridicul* rant* wrathful fume irked irk irks pissed rampage* rampant* ferocious* war wars
bristle* huff huffed sulk* cranky grumpy grouch* surly sullen snapped berate* scold* rebuke*
reprimand* lambast* tirade* diatribe* invective vitriol* venom* malice malicious* malevolen*
antagonis* animosity enmity rancor* rancour* acrimon* warlike militant* hothead* outburst*
uproar* stormed storming brawl* scuffle* skirmish* assault* slap* strangl* murder* defian* defy
defied insurgen* mutiny mutin* uprising* indignity affront* slur* spat bicker* wrangl* squabbl*
fracas strife discord* obnoxious petulan* vindictive* retribution reprisal* avenge*
`,
    disgust: `
disgust* revolting repuls* repugnan* loath* abhor* detest* nause* sicken* vile vomit* filth*
dirt dirty grime grimy foul* stench* stink* rotten rotting rot decay* putrid rancid slime* slimy
sewage sewer* garbage trash excrement feces faeces vermin* cockroach* parasit* germs infect*
contamin* pollut* toxic* poison* obscen* indecen* lewd* pervers* deprav* corrupt* sleaz* sordid
degrad* humiliat* shame* hypocri* despicab* contempt* scorn* disdain* distaste* aversion* averse
repel* repellent ugly ugliness hideous* grotesque* unsanitary unhygienic squalid squalor gory
gore gruesome* carcass* corpse* cadaver* maggot* mould mouldy moldy mold odious* abominab*
abomination* creep creeps scum yuck ew eww icky greasy sludge* bile cringe* cringing revulsion
queasy gag gagging retch* puke* spew* drool* phlegm snot mucus pus ooze oozing scab* lice louse
flea fleas bedbug* leech* rat rats roach* cesspool* cesspit* latrine* urine dung manure muck
mucky grubby smut* bestial* cannibal* fetid malodor* reek* stale festering fester* gangren*
leprosy leper* lurid tawdry vulgar* unpalatable inedible unsavory unsavoury sickly nasty
nastiness wicked* sinful sin sins immoral* shameless* disgrace* dishonor* dishonour* scandal*
heinous atrocious atrocit* monstrous slaughter* mutilat* dismember* entrails disembowel*
putrefaction carrion offal swill slop dregs scummy
`,
  },
  fr: {
    joy: `
joie joies joyeux joyeuse* heureux heureuse* bonheur* contente contents ravi ravie ravis
enchant* gai gaie gaiement gaiete allegresse rire rires riant sourire sourit souriant* plaisir*
amusant* amuse fete fetes festi* celebr* jubil* triomph* merveill* magnifique* splendide*
formidable* genial* geniale superbe* adorable* amour* aimer aime aimee aimait adore* tendresse
chaleureu* rejoui* enthousias* euphori* extase* fier fiere fierte succes reussi* victoire* gagne
gagner gagnant* bravo felicit* delicieu* bienheureu* paisible* paix serenite soulag* ami amie
amis amies amitie
`,
    trust: `
confiance fiable* fiabilite fidele* fidelite loyal* loyaute honnete* honnetete sincere*
sincerite crois croire respect* estime* securite protege* proteger protection soutien* soutenir
ami amie amis amies amitie allie* partenaire* cooper* collabor* promesse* promet* devoue*
devouement integre integrite authentique* credib* garanti* rassur* sagesse competen* solidarite
solidaire* bienveillan* compassion fraternit* equitable* justice
`,
    fear: `
peur peurs effray* effroi terreur* terrifi* horreur* horrifi* epouvant* angoiss* anxi* inquiet
inquiete inquiets inquietude* inquiet* crainte* craindre craint* menac* danger* dangereu* peril*
perilleu* risque* alarm* panique* paniqu* trembl* cauchemar* fantome* monstre* catastroph*
desastre* violen* attaqu* meurtre* tuer tue tues tempete* inond* seisme* epidemie* maladie*
sinistre* lugubre* vulnerable* detresse hurl* cri cris crier fuir fuyai* fuyant* bombard*
explosion* guerre* massacre*
`,
    surprise: `
surpris* surprendre surprenant* etonn* stupef* ebahi* abasourdi* sider* inattendu* soudain*
brusque* imprevu* incroyable* inoui* extraordinaire* choque* choquant* merveill* emerveill*
miracle* miraculeu* mystere* mysterieu* etrange* bizarre* revel* decouv* stupeur
`,
    sadness: `
triste* tristesse chagrin* malheur* douleur* douloureu* deuil* pleur* larme* sanglot* melancol*
deprim* depression* desespoir desesper* solitude solitaire* abandon* perte* perdu perdue perdus
mort morts morte deces decede* mourir mourut meurt funerai* enterr* tragique* tragedie* misere*
miserable* souffr* regret* nostalg* desol* echoue* sombre* morne accabl* afflig* malheureusement
orphelin* veuve* veuf pauvrete famine* exil* defaite*
`,
    anticipation: `
reve reves rever revait reveur* attente* attendre attendait attendu* espoir* espere* esperer
esperance* espera* impatien* hate avenir futur* bientot prevoir prevu prevision* anticip* rever
souhait* desir* aspir* ambition* promesse* imminent* prepar* curiosite curieu* excite*
enthousias* destin* opportunit* perspective*
`,
    anger: `
colere* fache* furieu* fureur* rage* enrag* irrit* agac* exasper* indign* revolt* haine* hair
hais hait detest* rancune* rancœur hostil* agress* violen* frustr* vengeance* venge* venger
insult* outrag* querelle* dispute* conflit* combat* bagarre* furibond* courroux protest* injust*
trahi* trahison*
`,
    disgust: `
degout* ecœur* ecoeur* repugn* repuls* nause* vomi* ignoble* immonde* abject* infect infame*
sordide* sale sales salete* crasse* puant* puanteur* pourri* ordure* degueulasse* obscene*
corrompu* corruption* mepris* dedain* hideux* hideuse* odieu* detest*
`,
  },
  es: {
    joy: `
alegr* feliz felices felicidad* dicha contento contenta contentos gozo goz* jubilo jubil* risa*
reir rie sonri* divertid* encant* maravill* magnific* esplendid* estupend* fantastic* genial*
amor* amoros* amaba querid* carino* ternura celebr* fiesta* festej* triunf* victori* exito*
orgull* agradec* bendic* sereni* placer* placent* disfrut* entusias* euforia* extasis dulce*
delicios* hermos* bello bella amig* amistad*
`,
    trust: `
confianza confiar confiable* confio confia fiel fieles fidelidad leal* lealtad honest* honrad*
sincer* respet* segur* protec* apoy* amig* amistad* alian* cooper* colabor* promes* creer cree
crey* integridad autentic* garant* certez* fiab* credib* respaldo solidari* compasi* bondad*
amable* justicia
`,
    fear: `
miedo* temor* temer teme temia temen asust* aterrad* aterror* terror* horror* horroriz* espant*
panico* ansi* angusti* preocup* inquiet* amenaz* peligr* riesgo* alarm* tembl* pesadilla*
fantasma* monstruo* catastrof* desastre* violen* ataque* atac* asesin* tormenta* huracan* inund*
terremoto* epidemia* enfermedad* huir huy* vulnerable* desamparo* guerra* bombarde* explosion*
`,
    surprise: `
sorpres* sorprend* asombr* estupefact* atonit* pasmad* inesperad* repentin* subit* increible*
extraordinari* milagr* maravill* misteri* sobresalt* impactante* revelaci* descubr* insolit*
inaudit* imprevist* conmoci* extrano* extrana* extraneza
`,
    sadness: `
triste* tristeza dolor* doloros* sufr* llor* llanto lagrima* melancol* depresi* deprimid*
desesper* soledad solitari* abandon* perdida* perdid* luto duelo muerte* muert* murio morir
fallec* funeral* entierro* tumba* tragedia* tragic* desgracia* desdicha* miseria* miserabl*
lament* arrepent* nostalgi* anoranza anorar anoro huerfan* viud* pobreza hambruna* exilio*
fracas* derrota* desolad* afligid*
`,
    anticipation: `
esper* desear deseaba desea desean anticip* expectativa* expectaci* impacien* futur* prever
previst* pronostic* prediccion* promet* prepar* sueno* deseo* anhel* aspir* ambici* curios*
emocionante* emocionad* entusias* ilusi* destino* oportunidad* inminente*
`,
    anger: `
ira iracund* enoj* enfad* furi* rabia* rabios* colera colerico* indign* irrit* molest* odio
odiar odiaba odia odian rencor* resentim* hostil* agresi* agresiv* violen* venganza* veng*
insult* ofens* ultraj* furibund* exasper* frustr* protest* injustici* traici* rebel* disput*
pelea* conflicto* combat*
`,
    disgust: `
asco ascos asquer* asquea* repugn* repuls* nause* vomit* inmund* suci* mugr* podrid* pudr*
hedor* hedi* apest* basura* excrement* cucaracha* rata ratas parasit* infect* contamin* corrupt*
obscen* depravad* despreciab* desprecio* desden* abomina* repel* odioso* vil viles
`,
  },
  de: {
    joy: `
freude* freu* froh* glucklich* gluck begeist* heiter* jubel* lachen lacht lachte lachten gelacht
lacheln lachelt* vergnug* spass* feier* wunderbar* wundervoll* herrlich* prachtig* grossartig*
toll wunderschon* liebe lieben liebt liebte geliebt* liebevoll* zartlich* stolz* erfolg* sieg*
triumph* dankbar* zufrieden* entzuck* genuss* geniess* erleichter* selig* gluckselig* ekstase*
euphor* freund*
`,
    trust: `
vertrau* zuverlass* treu* loyal* ehrlich* aufricht* glaub* respekt* sicher* schutz* unterstutz*
hilfsbereit* freund* partner* verbundet* bundnis* zusammenarbeit* kooperat* versprech* zusage*
verlasslich* integritat* glaubwurdig* gewiss* garant* solidar* mitgefuhl* geborgen* gerecht*
`,
    fear: `
angst* furcht* befurcht* schreck* erschreck* entsetz* panik* grauen* grausam* horror* terror*
bedroh* drohung* droh* gefahr* risiko* riskant* besorg* sorge sorgen beunruhig* unruhig* nervos*
zitter* alptraum* albtraum* gespenst* monster* ungeheuer* katastroph* unheil* unheimlich*
duster* bedrangnis* flucht* flieh* gewalt gewalttat* gewaltsam* angriff* anschlag* mord* seuche*
epidemie* pandemie* sturm* unwetter* uberschwemm* hochwasser* erdbeben* verletz* opfer* hilflos*
trauma* krieg* bombe* explosion*
`,
    surprise: `
uberrasch* erstaun* verbluff* verwunder* wunder* wunderbar* staun* plotzlich* unerwartet*
unvorhergesehen* unglaublich* fassungslos* sprachlos* schock* erschutter* sensation* unfassbar*
aussergewohnlich* merkwurdig* seltsam* ratsel* geheimnis* enthull* entdeck* verdutzt* baff
`,
    sadness: `
traurig* trauer* kummer* leid leiden leidet litt leidvoll* leider schmerz* weinen weinte weinten
weinend* trane* schluchz* melanchol* depress* deprimi* verzweif* hoffnungslos* einsam* verlust*
verloren* tod tode* todes* tot toten starb* sterben* stirbt gestorben verstorb* beerdig*
begrabnis* friedhof* tragodie* tragisch* ungluck* elend* jammer* klaglich* bedauer* reue*
heimweh* sehnsucht* betrubt* niedergeschlagen* trostlos* waise* witwe* armut* hungersnot* exil*
scheiter* niederlage* enttausch* trauma*
`,
    anticipation: `
erwart* hoff* erhoff* vorfreude* gespannt* ungeduld* zukunft* zukunftig* bevorsteh* vorberei*
vorhersag* prognose* versprech* traum* wunsch* sehnsucht* sehnen sehnte ehrgeiz* neugier*
aufreg* chance* gelegenheit* schicksal*
`,
    anger: `
wut* zorn* arger* verarger* empor* rasend* hass* gehass* feindselig* feind* aggress* entrust*
rache* gereizt* reizbar* genervt* nervig* frust* beleidig* streit* kampf* protest* ungerecht*
verrat* verrater* tobt* tobend* brull* schimpf* fluch*
`,
    disgust: `
ekel* ekl* abscheu* widerlich* widerwartig* abstoss* angewidert* ubel* brechreiz* erbrech* kotz*
schmutz* dreck* verfault* verrott* gestank* stink* unrat ungeziefer* parasit* schleim* verseuch*
verdorb* pervers* obszon* korrupt* verachtung* veracht* schabig* scheusslich* grasslich*
heuchel* heuchler*
`,
  },
};

/** Words that negate the next few words of their clause ("not happy", "pas heureux"). */
export const NEGATORS: Record<string, string> = {
  en: 'not no never nor without hardly barely neither cannot t none nobody nothing lack lacking',
  fr: 'ne n pas jamais sans aucun aucune ni nul nulle',
  es: 'no nunca jamas sin ni tampoco ningun ninguna ninguno nada',
  de: 'nicht kein keine keinen keinem keiner keines nie niemals ohne weder',
};

/** Words that strengthen the next word ("very happy"). */
export const INTENSIFIERS: Record<string, string> = {
  en: 'very extremely so really deeply truly incredibly utterly absolutely terribly highly most',
  fr: 'tres vraiment extremement profondement tellement si absolument',
  es: 'muy realmente extremadamente profundamente tan sumamente absolutamente',
  de: 'sehr wirklich extrem zutiefst so total absolut ausserst',
};
