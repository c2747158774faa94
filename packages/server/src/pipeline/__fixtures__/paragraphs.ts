/**
 * Encyclopedia-style paragraphs for the pipeline's unit tests, written for them in four
 * languages, plus web boilerplate and emotionally marked texts.
 */

export const EN = {
  physics:
    'Quantum mechanics is the branch of physics that describes the behaviour of matter and energy at the scale of atoms and subatomic particles. ' +
    'Its central equation, formulated by Erwin Schrödinger in 1926, gives the probability amplitude of finding a particle in a given state. ' +
    'Experiments on the photoelectric effect showed that light is absorbed in discrete quanta whose energy is proportional to their frequency. ' +
    'The theory predicts phenomena such as tunnelling, superposition and entanglement, all of which have since been measured in the laboratory with great precision. ' +
    'Physicists still debate how the wave function should be interpreted, although the equations themselves agree with every experiment performed so far.',
  software:
    'A compiler is a computer program that translates source code written in a programming language into machine code that a processor can execute. ' +
    'Modern compilers parse the program into an abstract syntax tree, check its types and apply optimisation passes before generating instructions. ' +
    'Software engineers rely on compilers, debuggers and version control systems to build large applications collaboratively. ' +
    'Just-in-time compilation, used by the Java virtual machine and by JavaScript engines in web browsers, compiles code while the application is running. ' +
    'The design of a compiler influences the performance, security and portability of the software it produces across different operating systems.',
  ethics:
    'Ethics is the branch of philosophy that examines questions of right and wrong, virtue and justice. ' +
    'Aristotle argued that a good life consists in the exercise of virtue guided by practical wisdom, whereas Kant held that moral duty follows from reason alone. ' +
    'Utilitarian philosophers such as John Stuart Mill judge an action by its consequences for the happiness of everyone affected. ' +
    'Contemporary debates in moral philosophy concern the nature of moral truth, free will and the responsibility of persons for their choices. ' +
    'Metaethics asks whether moral statements describe objective facts or merely express the attitudes and values of those who utter them.',
  cooking:
    'Risotto is a traditional dish from northern Italy made by slowly cooking short-grain rice in broth until it reaches a creamy consistency. ' +
    'The cook first toasts the rice in butter with chopped onion, then adds warm stock one ladle at a time while stirring constantly. ' +
    'Parmesan cheese and a knob of cold butter are stirred in at the end, a step the Italians call mantecatura. ' +
    'Popular variations include saffron risotto from Milan, mushroom risotto and seafood risotto served along the coast. ' +
    'The dish is usually served immediately on warm plates, because the rice continues to absorb liquid and thickens as it rests.',
  history:
    'Marie Curie was born in Warsaw on 7 November 1867 and moved to Paris in 1891 to study at the University of Paris. ' +
    'In 1903 she shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel for their research on radioactivity. ' +
    'She later directed the Radium Institute, which received funding of $50,000 from the Carnegie Institution and became a leading centre of research.',
  volcano:
    'A volcano is an opening in the crust of a planet through which lava, volcanic ash and gases escape from a magma chamber. ' +
    'Volcanoes form where magma rises along the boundaries of tectonic plates or above hot spots in the mantle. ' +
    'When magma rich in gas reaches the surface of the volcano, the eruption can hurl lava, ash and volcanic bombs high into the air. ' +
    'The eruption of the volcano Vesuvius in the year 79 buried Pompeii under volcanic ash, pumice and cooled lava.',
  bread:
    'Bread is baked from a dough of flour and water, usually leavened with yeast or a sourdough starter. ' +
    'Kneading the bread dough develops gluten, which traps the gas released by the yeast as the dough rises. ' +
    'The risen dough is shaped into a loaf and baked in a hot oven until the bread forms a golden crust. ' +
    'Bakers still make rye bread, flatbread and baguettes from flour, yeast and water every morning.',
};

export const FR = {
  physics:
    'La mécanique quantique est la branche de la physique qui décrit le comportement de la matière et de l’énergie à l’échelle des atomes. ' +
    'En 1900, Max Planck proposa que l’énergie du rayonnement soit échangée par paquets discrets, appelés quanta. ' +
    'L’équation de Schrödinger, publiée en 1926, permet de calculer l’évolution de la fonction d’onde d’un système. ' +
    'Les physiciens ont vérifié ses prédictions, p. ex. l’effet tunnel et l’intrication, avec une précision remarquable.',
  history:
    'Le château de Versailles fut la résidence des rois de France de 1682 à 1789. ' +
    'M. Dupont, conservateur du musée, rappelle que Louis XIV y installa la cour et le gouvernement. ' +
    'Mme de Maintenon, épouse secrète du roi, y fonda plus tard la maison royale de Saint-Louis. ' +
    'Aujourd’hui, le domaine accueille environ 7,7 millions de visiteurs par an, soit 15 % de plus qu’en 2010.',
  quotes:
    'Le ministre déclara : « La réforme entrera en vigueur le 12.05.2024. » Elle fut pourtant reportée. ' +
    'Selon l’Institut (chiffres de 2023), le coût atteignait 1 250,5 millions d’euros. ' +
    'Était-ce prévisible ? Les économistes, etc. en doutaient déjà.',
};

export const ES = {
  physics:
    'La física cuántica estudia el comportamiento de la materia y la energía a escalas muy pequeñas, como las de los átomos y los electrones. ' +
    'Según el Dr. Martínez, profesor de la Universidad de Salamanca, la teoría explica fenómenos que la física clásica no podía describir. ' +
    'Las primeras ideas surgieron a principios del s. XX, cuando Planck estudió la radiación del cuerpo negro. ' +
    'Hoy sus aplicaciones incluyen los láseres, los transistores y la resonancia magnética utilizada en los hospitales.',
  history:
    'La Alhambra es un conjunto de palacios y fortalezas situado en Granada, en el sur de España. ' +
    'Fue construida principalmente entre los siglos XIII y XIV por la dinastía nazarí. ' +
    'La Sra. López, guía del monumento, explica que recibe cerca de 2,7 millones de visitantes al año. ' +
    '¿Por qué es tan famosa? Su decoración, sus jardines y sus fuentes la convierten en una obra maestra del arte andalusí.',
};

export const DE = {
  physics:
    'Die Quantenmechanik ist eine physikalische Theorie, die das Verhalten der Materie auf der Ebene der Atome und Elementarteilchen beschreibt. ' +
    'Sie entstand im 20. Jahrhundert durch die Arbeiten von Max Planck, Albert Einstein und Werner Heisenberg. ' +
    'Die Schrödingergleichung, die 1926 veröffentlicht wurde, beschreibt z. B. die zeitliche Entwicklung eines Quantensystems. ' +
    'Viele moderne Technologien, etwa Laser und Halbleiter, beruhen auf ihren Erkenntnissen.',
  history:
    'Die Berliner Mauer wurde am 13. August 1961 von der Regierung der DDR errichtet. ' +
    'Sie trennte West-Berlin bis zum 9. November 1989 vom Umland und vom Ostteil der Stadt. ' +
    'Nach Angaben des Museums starben mindestens 140 Menschen an der Grenze, d.h. bei Fluchtversuchen oder durch Unfälle. ' +
    'Heute erinnern u.a. die Gedenkstätte an der Bernauer Straße und die East Side Gallery an die Teilung.',
};

/** Navigation, cookie banners and footer text as scraped from a web page. */
export const BOILERPLATE = {
  menu: 'Home\nAbout us\nProducts\nServices\nBlog\nContact\nLogin | Register\nFAQ\nCareers\nPress\nSitemap\nFollow us on Facebook | Twitter | Instagram',
  cookies:
    'We use cookies to improve your experience. By clicking Accept all you agree to our Privacy Policy and Terms of Use. ' +
    'Click here to manage your cookie settings!!! Subscribe to our newsletter at https://example.com/newsletter. ' +
    'COPYRIGHT 2024 EXAMPLE INC. ALL RIGHTS RESERVED.',
};

export const EMOTION = {
  joyful:
    'The children laughed with delight as the festival began. Everyone was happy and cheerful, ' +
    'celebrating the wonderful harvest with music, dancing and joyful songs. It was a beautiful, ' +
    'sunny day full of love, friendship and laughter.',
  fearful:
    'The villagers were terrified as the storm approached. Panic spread through the dark streets, ' +
    'and people feared that the flood would destroy their homes. Many trembled with dread, ' +
    'anxious and afraid of the danger that threatened them during the horrifying night.',
  happy: 'The researchers were happy with the results and delighted by the success of the trial.',
  notHappy:
    'The researchers were not happy with the results and never delighted by the success of the trial.',
};
