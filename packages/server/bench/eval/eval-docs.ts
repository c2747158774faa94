/**
 * The documents of our embedder evaluation set: short texts written for ADAM, on varied
 * technical and general topics, a few in French, Spanish and German. Several topics hold
 * near-miss neighbours (same words, other meaning) so that keyword overlap alone misleads.
 */
export interface EvalDoc {
  id: string;
  text: string;
}

export const EVAL_DOCS: readonly EvalDoc[] = [
  // Software development
  {
    id: 'dev-01',
    text: 'A memory leak happens when a program keeps references to objects it no longer needs, so the garbage collector cannot reclaim them. Over time the heap grows until the process runs out of memory and is killed.',
  },
  {
    id: 'dev-02',
    text: 'Git rebase replays your commits on top of another branch, producing a linear history. Unlike a merge it rewrites commit hashes, so never rebase commits that others have already pulled.',
  },
  {
    id: 'dev-03',
    text: 'A race condition occurs when two threads read and write shared state without coordination and the result depends on timing. Locks, atomic operations or message passing remove the hazard.',
  },
  {
    id: 'dev-04',
    text: 'Unit tests check one small piece of code in isolation, replacing its collaborators with fakes. They run in milliseconds, so developers can execute thousands of them before every commit.',
  },
  {
    id: 'dev-05',
    text: 'Semantic versioning numbers releases as major.minor.patch. A major bump signals breaking changes to the public interface, a minor one adds features compatibly, a patch only fixes bugs.',
  },
  {
    id: 'dev-06',
    text: 'A stack overflow error is raised when recursion goes too deep and the call stack exhausts its fixed size. Converting the recursion into a loop with an explicit stack usually fixes it.',
  },
  {
    id: 'dev-07',
    text: 'Code review lets a colleague read a change before it is merged. Reviewers catch defects, share knowledge of the codebase and keep the style consistent across the team.',
  },
  {
    id: 'dev-08',
    text: 'Profilers sample where a program spends its CPU time. A flame graph shows the hottest call paths as wide bars, which points to the functions worth optimising first.',
  },
  {
    id: 'dev-09',
    text: 'Static typing checks the types of variables when the program is compiled rather than when it runs. Many mistakes, such as passing a string where a number is expected, are caught before shipping.',
  },
  {
    id: 'dev-10',
    text: 'A regular expression describes a pattern of characters. It can validate input such as postal codes, or find and replace every date written in a given format inside a long text.',
  },
  {
    id: 'dev-11',
    text: 'Dependency injection hands an object the services it needs instead of letting it build them. Swapping the real database for an in-memory one in tests becomes trivial.',
  },
  {
    id: 'dev-12',
    text: 'Continuous integration builds and tests every change pushed to the shared repository. A red pipeline stops broken code from reaching the main branch.',
  },
  // Databases
  {
    id: 'db-01',
    text: 'An index on a table column lets the database find matching rows without scanning the whole table. It speeds up reads but slows down inserts, because every write must also update the index.',
  },
  {
    id: 'db-02',
    text: 'A transaction groups several statements so that they all succeed or all fail together. If the server crashes halfway, the partial changes are rolled back and the data stays consistent.',
  },
  {
    id: 'db-03',
    text: 'Normalisation splits data into tables so that every fact is stored once. It avoids update anomalies, at the cost of joins when the data is read back.',
  },
  {
    id: 'db-04',
    text: 'Replication copies every write from a primary server to one or more replicas. Reads can be spread across the replicas, and a replica can be promoted if the primary fails.',
  },
  {
    id: 'db-05',
    text: 'SQL injection happens when user input is pasted into a query string. An attacker can then read or delete any data; parameterised queries keep input and code apart.',
  },
  {
    id: 'db-06',
    text: 'A deadlock arises when two transactions each hold a lock the other one is waiting for. The database detects the cycle and aborts one of them so the other can proceed.',
  },
  {
    id: 'db-07',
    text: 'Write-ahead logging records every change in a sequential log before applying it to the data files. After a power cut the log is replayed, so committed work is never lost.',
  },
  {
    id: 'db-08',
    text: 'Document stores keep records as flexible JSON-like documents instead of fixed rows and columns. Fields may differ from one record to the next, which suits fast-changing schemas.',
  },
  {
    id: 'db-09',
    text: 'Sharding splits a large dataset across several machines by a key such as the customer number. Each server holds only a slice, so storage and load grow horizontally.',
  },
  {
    id: 'db-10',
    text: 'A vector database stores embeddings and answers nearest-neighbour queries. Approximate graph indexes such as HNSW return the closest items among millions in a few milliseconds.',
  },
  // Networking and web
  {
    id: 'net-01',
    text: 'DNS translates a human-readable domain name into the numeric IP address of a server. Resolvers cache answers for the time-to-live set by the domain owner.',
  },
  {
    id: 'net-02',
    text: 'TCP guarantees that bytes arrive in order and without loss by numbering segments and retransmitting the ones that are not acknowledged. UDP skips these guarantees for lower latency.',
  },
  {
    id: 'net-03',
    text: 'A content delivery network keeps copies of images, scripts and videos on servers close to users. Pages load faster because data travels a shorter distance.',
  },
  {
    id: 'net-04',
    text: 'HTTP status 404 means the requested resource was not found, while 500 signals an error inside the server. Codes in the 300 range redirect the client to another address.',
  },
  {
    id: 'net-05',
    text: 'A load balancer spreads incoming requests across several application servers. If one server stops answering its health checks, traffic is routed to the healthy ones.',
  },
  {
    id: 'net-06',
    text: 'WebSockets keep a single connection open between the browser and the server so either side can send messages at any time, which suits chat and live dashboards.',
  },
  {
    id: 'net-07',
    text: 'Caching headers tell browsers how long they may reuse a downloaded file. A long max-age on versioned assets avoids fetching the same stylesheet on every visit.',
  },
  {
    id: 'net-08',
    text: 'Wi-Fi signals weaken through thick walls and interfere with microwave ovens. Moving the router to a central, raised spot often improves coverage more than buying a new one.',
  },
  {
    id: 'net-09',
    text: 'REST APIs expose resources at URLs and use the HTTP verbs GET, POST, PUT and DELETE to read and change them. Responses are usually JSON.',
  },
  // Security
  {
    id: 'sec-01',
    text: 'Phishing emails imitate a bank or a colleague to trick people into typing their password on a fake login page. Check the sender address and never follow links asking for credentials.',
  },
  {
    id: 'sec-02',
    text: 'Passwords must be stored as slow salted hashes such as scrypt, bcrypt or Argon2. Even if the database leaks, attackers cannot easily recover the original secrets.',
  },
  {
    id: 'sec-03',
    text: 'Two-factor authentication asks for a second proof besides the password, such as a six-digit code from a phone app. A stolen password alone is then not enough to sign in.',
  },
  {
    id: 'sec-04',
    text: 'Ransomware encrypts the files on a computer and demands payment for the key. Offline backups that the malware cannot reach are the surest way to recover without paying.',
  },
  {
    id: 'sec-05',
    text: 'TLS encrypts the traffic between a browser and a website and proves the site identity with a certificate signed by a trusted authority. The padlock icon shows it is active.',
  },
  {
    id: 'sec-06',
    text: 'Cross-site scripting lets an attacker inject JavaScript into a page viewed by other users. Escaping output and a strict content security policy block it.',
  },
  {
    id: 'sec-07',
    text: 'A firewall filters network traffic by rules on addresses, ports and protocols. Blocking every inbound port except the few a service needs shrinks the attack surface.',
  },
  {
    id: 'sec-08',
    text: 'Software updates often patch security holes that are already being exploited. Delaying them leaves known vulnerabilities open for anyone scanning the internet.',
  },
  // Cloud and operations
  {
    id: 'ops-01',
    text: 'Containers package an application with its libraries so it runs the same on a laptop and in production. They share the host kernel, which makes them lighter than virtual machines.',
  },
  {
    id: 'ops-02',
    text: 'Kubernetes schedules containers across a cluster of machines, restarts them when they crash and scales the number of replicas with the load.',
  },
  {
    id: 'ops-03',
    text: 'Autoscaling adds servers when traffic rises and removes them when it falls, so you pay only for the capacity you actually use.',
  },
  {
    id: 'ops-04',
    text: 'Monitoring collects metrics such as CPU usage, latency and error rates, and alerts the on-call engineer when a threshold is crossed in the middle of the night.',
  },
  {
    id: 'ops-05',
    text: 'Infrastructure as code describes servers, networks and permissions in versioned files. The same configuration can recreate an identical environment in minutes.',
  },
  {
    id: 'ops-06',
    text: 'A blue-green deployment runs the new version beside the old one and switches traffic at once. If something breaks, switching back is instant.',
  },
  {
    id: 'ops-07',
    text: 'Log aggregation ships the output of every service to one searchable store, so an engineer can follow a single request across dozens of machines.',
  },
  {
    id: 'ops-08',
    text: 'A disk that fills up can stop a database from accepting writes. Rotating and compressing old log files keeps the free space under control.',
  },
  // Machine learning
  {
    id: 'ml-01',
    text: 'Overfitting happens when a model memorises the training examples, noise included, and then performs poorly on new data. Regularisation, more data and early stopping reduce it.',
  },
  {
    id: 'ml-02',
    text: 'Gradient descent adjusts model parameters step by step in the direction that lowers the loss. The learning rate sets the step size: too large diverges, too small crawls.',
  },
  {
    id: 'ml-03',
    text: 'Word embeddings map words to dense vectors so that words used in similar contexts end up close together, for example king and queen, or car and truck.',
  },
  {
    id: 'ml-04',
    text: 'A confusion matrix counts true positives, false positives, true negatives and false negatives. Precision and recall are computed from it to judge a classifier.',
  },
  {
    id: 'ml-05',
    text: 'Transformers process a whole sequence at once with self-attention, letting each token weigh every other token. They replaced recurrent networks for translation and text generation.',
  },
  {
    id: 'ml-06',
    text: 'Clustering groups unlabeled data points by similarity. K-means picks k centres, assigns each point to the nearest centre and moves the centres until they settle.',
  },
  {
    id: 'ml-07',
    text: 'A decision tree asks a sequence of yes-or-no questions about the features. Random forests average many trees trained on random samples to cut their variance.',
  },
  {
    id: 'ml-08',
    text: 'Data labelling is often the most expensive part of a supervised project: people must annotate thousands of images or sentences by hand before any model can learn.',
  },
  {
    id: 'ml-09',
    text: 'Large language models are trained to predict the next word on huge text collections. They can then answer questions, summarise documents and write code from a short instruction.',
  },
  // Hardware and computers
  {
    id: 'hw-01',
    text: 'A solid-state drive stores data in flash memory with no moving parts. It boots a computer in seconds, whereas a spinning hard disk has to move its read head.',
  },
  {
    id: 'hw-02',
    text: 'Thermal paste fills the microscopic gaps between a processor and its cooler. When it dries out, the chip overheats and slows itself down to avoid damage.',
  },
  {
    id: 'hw-03',
    text: 'RAM is the short-term working memory of a computer. Opening many browser tabs fills it, and the system then swaps to disk and becomes sluggish.',
  },
  {
    id: 'hw-04',
    text: 'A graphics card contains thousands of small cores that run the same operation on many values in parallel, which is why it renders games and trains neural networks so quickly.',
  },
  {
    id: 'hw-05',
    text: 'Lithium-ion batteries age faster when kept at full charge in a hot place. Keeping a laptop between twenty and eighty percent extends the battery life.',
  },
  {
    id: 'hw-06',
    text: 'A mechanical keyboard uses an individual switch under every key. Typists like the tactile feedback, though the clicking can annoy people sharing the office.',
  },
  {
    id: 'hw-07',
    text: 'An uninterruptible power supply keeps a server running on its battery for a few minutes during a blackout, long enough to shut it down cleanly.',
  },
  // Mathematics and statistics
  {
    id: 'math-01',
    text: 'A prime number has exactly two divisors, one and itself. There are infinitely many primes, as Euclid proved more than two thousand years ago.',
  },
  {
    id: 'math-02',
    text: 'The derivative of a function measures how fast its output changes as the input changes. Geometrically it is the slope of the tangent line to the curve.',
  },
  {
    id: 'math-03',
    text: 'The median is the middle value of a sorted list. Unlike the mean it is not dragged upward by a few extremely large values, which is why incomes are often reported by their median.',
  },
  {
    id: 'math-04',
    text: 'Correlation measures how two variables move together, but it does not prove that one causes the other. A hidden third factor can drive both.',
  },
  {
    id: 'math-05',
    text: 'A matrix can represent a linear transformation of space such as a rotation or a scaling. Multiplying two matrices composes the two transformations.',
  },
  {
    id: 'math-06',
    text: 'The Pythagorean theorem states that in a right triangle the square of the longest side equals the sum of the squares of the other two sides.',
  },
  {
    id: 'math-07',
    text: 'A confidence interval gives a range that likely contains the true value of a population quantity. Larger samples give narrower intervals.',
  },
  // Physics and astronomy
  {
    id: 'phy-01',
    text: 'Nothing can travel faster than light in a vacuum, about three hundred thousand kilometres per second. Light from the Sun takes roughly eight minutes to reach Earth.',
  },
  {
    id: 'phy-02',
    text: 'A black hole is a region where gravity is so strong that not even light escapes. It forms when a massive star collapses at the end of its life.',
  },
  {
    id: 'phy-03',
    text: 'The seasons come from the tilt of the Earth axis, not from its distance to the Sun. When a hemisphere leans toward the Sun, it receives more direct sunlight and has summer.',
  },
  {
    id: 'phy-04',
    text: 'Friction is the force that resists sliding between two surfaces. It turns motion into heat, which is why rubbing your hands warms them.',
  },
  {
    id: 'phy-05',
    text: 'Tides are caused mainly by the gravitational pull of the Moon on the oceans. Twice a day the sea rises and falls along the coast.',
  },
  {
    id: 'phy-06',
    text: 'Mars is a cold desert planet with a thin carbon dioxide atmosphere. Robotic rovers have found evidence that liquid water once flowed on its surface.',
  },
  {
    id: 'phy-07',
    text: 'A solar eclipse happens when the Moon passes between the Sun and the Earth and hides the solar disk. Looking at it without special glasses damages the eyes.',
  },
  {
    id: 'phy-08',
    text: 'Sound is a pressure wave that needs a medium such as air or water. In the vacuum of space no one can hear an explosion.',
  },
  // Chemistry and biology
  {
    id: 'bio-01',
    text: 'Photosynthesis converts light into chemical energy. Plants take in carbon dioxide and water and, using sunlight captured by chlorophyll, produce sugar and release oxygen.',
  },
  {
    id: 'bio-02',
    text: 'DNA carries the genetic instructions of living organisms as a sequence of four bases. Genes are stretches of this sequence that code for proteins.',
  },
  {
    id: 'bio-03',
    text: 'Vaccines train the immune system by exposing it to a harmless piece or weakened form of a pathogen, so that it reacts quickly when the real infection comes.',
  },
  {
    id: 'bio-04',
    text: 'Antibiotics kill bacteria but have no effect on viruses such as the common cold. Overusing them breeds resistant strains that no drug can treat.',
  },
  {
    id: 'bio-05',
    text: 'Bees pollinate a large share of the crops we eat by carrying pollen from flower to flower. Pesticides and habitat loss have reduced their colonies.',
  },
  {
    id: 'bio-06',
    text: 'Water boils at one hundred degrees Celsius at sea level, but at a lower temperature on a high mountain, where the air pressure is lower.',
  },
  {
    id: 'bio-07',
    text: 'Rust forms when iron reacts with oxygen and moisture. Paint, oil or a zinc coating keeps the metal away from air and water and slows the corrosion.',
  },
  {
    id: 'bio-08',
    text: 'Evolution by natural selection favours individuals whose traits help them survive and reproduce, so those traits become more common over generations.',
  },
  {
    id: 'bio-09',
    text: 'Cells produce energy in their mitochondria by breaking down glucose with oxygen. The process releases carbon dioxide, which we breathe out.',
  },
  // Health and medicine
  {
    id: 'med-01',
    text: 'Adults need seven to nine hours of sleep a night. Chronic lack of sleep weakens concentration, mood and the immune defences.',
  },
  {
    id: 'med-02',
    text: 'High blood pressure rarely causes symptoms but strains the heart and arteries over the years. Less salt, regular exercise and medication bring it down.',
  },
  {
    id: 'med-03',
    text: 'Dehydration causes headaches, tiredness and dizziness. Drink regularly during hot weather and sport, before you feel thirsty.',
  },
  {
    id: 'med-04',
    text: 'A migraine is a severe throbbing headache, often on one side, that may come with nausea and sensitivity to light. Resting in a dark quiet room helps.',
  },
  {
    id: 'med-05',
    text: 'Type 2 diabetes develops when the body no longer responds well to insulin, so sugar builds up in the blood. Weight loss and exercise can delay or prevent it.',
  },
  {
    id: 'med-06',
    text: 'A sprained ankle should be rested, iced, compressed with a bandage and elevated during the first two days to limit swelling.',
  },
  {
    id: 'med-07',
    text: 'Regular brushing with fluoride toothpaste and flossing prevent cavities and gum disease. A dentist should check your teeth once or twice a year.',
  },
  {
    id: 'med-08',
    text: 'Anxiety disorders cause persistent worry that interferes with daily life. Cognitive behavioural therapy teaches people to challenge anxious thoughts.',
  },
  {
    id: 'med-09',
    text: 'Walking thirty minutes a day lowers the risk of heart disease, improves mood and helps control weight, and it needs no equipment.',
  },
  // Cooking and food
  {
    id: 'food-01',
    text: 'Bread dough rises because yeast eats sugars and releases carbon dioxide bubbles. Kneading develops gluten, which traps the gas and gives the loaf its structure.',
  },
  {
    id: 'food-02',
    text: 'To cook pasta, bring plenty of salted water to a rolling boil, add the pasta and stir. Taste it a minute before the time on the packet so it stays firm.',
  },
  {
    id: 'food-03',
    text: 'Searing meat in a very hot pan browns the surface through the Maillard reaction, which creates deep savoury flavours. Pat the meat dry first.',
  },
  {
    id: 'food-04',
    text: 'Leftovers should be cooled quickly and refrigerated within two hours, then eaten within three days, to keep bacteria from multiplying.',
  },
  {
    id: 'food-05',
    text: 'Chopping an onion releases a gas that irritates the eyes and makes them water. A sharp knife and a chilled onion reduce the tears.',
  },
  {
    id: 'food-06',
    text: 'Espresso is made by forcing hot water through finely ground, tightly packed coffee at high pressure. A good shot has a layer of golden crema on top.',
  },
  {
    id: 'food-07',
    text: 'Egg whites whip into stiff peaks only in a perfectly clean, grease-free bowl. A trace of yolk prevents the foam from forming.',
  },
  {
    id: 'food-08',
    text: 'Fermented foods such as yogurt, sauerkraut and kimchi contain live bacteria that may support a healthy gut.',
  },
  {
    id: 'food-09',
    text: 'Vegetarian cooks get protein from lentils, beans, tofu, eggs and cheese. Combining grains and legumes provides all the essential amino acids.',
  },
  // Gardening and nature
  {
    id: 'gar-01',
    text: 'Tomato plants need at least six hours of direct sun and deep, regular watering. Yellow lower leaves often signal overwatering or a lack of nitrogen.',
  },
  {
    id: 'gar-02',
    text: 'Compost turns kitchen scraps and garden waste into rich soil. Mix green material with dry brown leaves and turn the heap so air reaches the microbes.',
  },
  {
    id: 'gar-03',
    text: 'Prune fruit trees in late winter while they are dormant. Removing crossing and dead branches lets light into the canopy and improves the harvest.',
  },
  {
    id: 'gar-04',
    text: 'Slugs chew holes in lettuce and hostas overnight. Beer traps, copper tape and hand-picking at dusk keep them in check without poison.',
  },
  {
    id: 'gar-05',
    text: 'Houseplants die more often from too much water than too little. Let the top of the soil dry before watering and make sure the pot drains.',
  },
  {
    id: 'gar-06',
    text: 'Autumn leaves change colour because trees stop producing green chlorophyll as days shorten, revealing yellow and orange pigments that were there all along.',
  },
  {
    id: 'gar-07',
    text: 'A lawn mowed too short dries out and invites weeds. Cutting high and leaving the clippings on the grass keeps it green with less watering.',
  },
  // Cars and transport
  {
    id: 'car-01',
    text: 'A car that will not start and only clicks usually has a flat battery. Jump-starting it from another vehicle or charging the battery overnight gets it going.',
  },
  {
    id: 'car-02',
    text: 'Tyre pressure should be checked monthly when the tyres are cold. Under-inflated tyres wear unevenly, raise fuel consumption and lengthen braking distances.',
  },
  {
    id: 'car-03',
    text: 'Engine oil lubricates the moving parts and carries away heat. Changing it at the interval the manufacturer recommends prevents premature wear.',
  },
  {
    id: 'car-04',
    text: 'Electric vehicles use a battery and an electric motor instead of a petrol engine. They are quiet, need little maintenance and can be charged at home overnight.',
  },
  {
    id: 'car-05',
    text: 'Squealing brakes often mean the pads are worn down to their wear indicator. Replacing pads early avoids damaging the discs.',
  },
  {
    id: 'car-06',
    text: 'High-speed trains link many European cities in a few hours, city centre to city centre, often faster than flying once airport security is counted.',
  },
  {
    id: 'car-07',
    text: 'Cycling to work saves money, avoids traffic jams and builds fitness. A good lock, lights and a helmet make the daily ride safer.',
  },
  {
    id: 'car-08',
    text: 'A dashboard warning light shaped like an engine means the onboard computer detected a fault. A mechanic can read the stored error code with a diagnostic tool.',
  },
  // Finance and economics
  {
    id: 'fin-01',
    text: 'Inflation is the general rise of prices over time, which reduces what a sum of money can buy. Central banks raise interest rates to slow it down.',
  },
  {
    id: 'fin-02',
    text: 'Compound interest pays interest on previously earned interest, so savings grow faster the longer they are left invested.',
  },
  {
    id: 'fin-03',
    text: 'Diversification spreads investments across many companies, sectors and countries so that the failure of one does not wipe out the portfolio.',
  },
  {
    id: 'fin-04',
    text: 'An emergency fund covering three to six months of expenses protects a household from debt when a job is lost or the car breaks down.',
  },
  {
    id: 'fin-05',
    text: 'A mortgage is a loan to buy a home, repaid over many years, with the property as security. If the borrower stops paying, the lender can repossess the house.',
  },
  {
    id: 'fin-06',
    text: 'Supply and demand set market prices: when a product is scarce and many people want it, its price rises until fewer buyers are willing to pay.',
  },
  {
    id: 'fin-07',
    text: 'A recession is a significant decline in economic activity lasting months, visible in falling output, rising unemployment and weaker spending.',
  },
  {
    id: 'fin-08',
    text: 'Credit card debt carries very high interest. Paying the full balance every month avoids the charges entirely.',
  },
  // History and society
  {
    id: 'his-01',
    text: 'The printing press, developed by Gutenberg around 1450, made books cheap enough to spread widely and helped literacy and new ideas travel across Europe.',
  },
  {
    id: 'his-02',
    text: 'The Roman Empire built roads, aqueducts and cities across the Mediterranean. Its western half fell in the fifth century after invasions and internal crises.',
  },
  {
    id: 'his-03',
    text: 'The Industrial Revolution began in Britain in the eighteenth century, when steam engines and factories replaced hand production.',
  },
  {
    id: 'his-04',
    text: 'The fall of the Berlin Wall in 1989 opened the border between East and West Germany and led to reunification the following year.',
  },
  {
    id: 'his-05',
    text: 'The first humans to walk on the Moon landed with Apollo 11 in July 1969. Neil Armstrong stepped out first, followed by Buzz Aldrin.',
  },
  {
    id: 'his-06',
    text: 'Ancient Egyptians built the pyramids at Giza as tombs for their pharaohs more than four thousand years ago, moving huge limestone blocks without iron tools.',
  },
  {
    id: 'his-07',
    text: 'Women in the United Kingdom won the right to vote in stages, first in 1918 for some women over thirty and on equal terms with men in 1928.',
  },
  // Geography, climate and weather
  {
    id: 'geo-01',
    text: 'The Amazon rainforest covers much of northern South America and holds a tenth of the species known on Earth. Logging and farming clear large parts of it every year.',
  },
  {
    id: 'geo-02',
    text: 'Burning coal, oil and gas adds carbon dioxide to the atmosphere, which traps heat and warms the planet. Glaciers melt and sea levels rise as a result.',
  },
  {
    id: 'geo-03',
    text: 'Earthquakes happen when tectonic plates that are stuck together suddenly slip. The energy released travels as seismic waves that shake the ground.',
  },
  {
    id: 'geo-04',
    text: 'Hurricanes form over warm tropical oceans and draw their energy from evaporating water. They weaken quickly once they move over land.',
  },
  {
    id: 'geo-05',
    text: 'A rainbow appears when sunlight is refracted and reflected inside raindrops, splitting white light into its colours. You see it with the Sun behind you.',
  },
  {
    id: 'geo-06',
    text: 'The Sahara is the largest hot desert in the world. Daytime temperatures can exceed fifty degrees, while nights can be close to freezing.',
  },
  {
    id: 'geo-07',
    text: 'Lightning is a giant electrical discharge between clouds and the ground. Thunder is the sound of air expanding violently as the bolt heats it.',
  },
  {
    id: 'geo-08',
    text: 'Solar panels turn sunlight directly into electricity, and wind turbines turn moving air into power. Both produce no emissions while running.',
  },
  // Sports and leisure
  {
    id: 'spo-01',
    text: 'A marathon is a race of 42.195 kilometres. Runners train for months, gradually lengthening their long run, and eat carbohydrates before race day.',
  },
  {
    id: 'spo-02',
    text: 'In football, the offside rule stops attackers from waiting near the goal: a player is offside if fewer than two opponents are between him and the goal line when the ball is played.',
  },
  {
    id: 'spo-03',
    text: 'Stretching after exercise keeps muscles flexible, while a gentle warm-up before it raises body temperature and lowers the risk of injury.',
  },
  {
    id: 'spo-04',
    text: 'Chess players open by controlling the centre, developing knights and bishops, and castling early to protect the king.',
  },
  {
    id: 'spo-05',
    text: 'Swimming works almost every muscle while the water carries the body weight, making it gentle on the joints of older people and anyone recovering from injury.',
  },
  {
    id: 'spo-06',
    text: 'The Olympic Games bring together athletes from more than two hundred nations every four years, alternating summer and winter editions.',
  },
  // Music, art and language
  {
    id: 'art-01',
    text: 'Learning a musical instrument takes short daily practice rather than long weekly sessions. Slow, accurate repetition builds the muscle memory needed to play fast.',
  },
  {
    id: 'art-02',
    text: 'The Impressionists painted outdoors with visible brushstrokes, trying to capture the changing light of a moment rather than precise detail.',
  },
  {
    id: 'art-03',
    text: 'Photographers set exposure with three controls: aperture, shutter speed and ISO. A wide aperture blurs the background behind a portrait.',
  },
  {
    id: 'art-04',
    text: 'Children pick up a second language more easily than adults, especially pronunciation, but adults learn grammar and vocabulary faster at first.',
  },
  {
    id: 'art-05',
    text: 'A novel is a long work of fiction with characters and a plot. Reading fiction regularly has been linked to better empathy.',
  },
  {
    id: 'art-06',
    text: 'Spaced repetition schedules reviews of flashcards just before you would forget them, so vocabulary sticks with far fewer hours of study.',
  },
  // Home, pets and daily life
  {
    id: 'home-01',
    text: 'A dripping tap is usually caused by a worn washer or cartridge. Turn off the water supply under the sink before taking the handle apart to replace it.',
  },
  {
    id: 'home-02',
    text: 'Mould grows on walls where warm moist air meets a cold surface. Ventilating after showers and cooking and keeping rooms heated stops it coming back.',
  },
  {
    id: 'home-03',
    text: 'Insulating the loft and sealing draughts around windows cut heating bills, because most of the warmth of a house escapes through the roof and gaps.',
  },
  {
    id: 'home-04',
    text: 'Dogs need daily walks and play to stay calm. A bored dog left alone for hours may bark, chew furniture or dig up the garden.',
  },
  {
    id: 'home-05',
    text: 'Cats scratch to sharpen their claws and mark territory. A sturdy scratching post placed near the sofa saves the furniture.',
  },
  {
    id: 'home-06',
    text: 'A smoke alarm should be tested every month and its battery replaced every year. It gives the family precious minutes to escape a fire.',
  },
  {
    id: 'home-07',
    text: 'Decluttering one drawer or shelf at a time, and giving away what has not been used for a year, makes a small flat feel larger.',
  },
  {
    id: 'home-08',
    text: 'Babies sleep up to seventeen hours a day in short stretches. A regular bedtime routine helps them settle in the evening.',
  },
  // Work and productivity
  {
    id: 'work-01',
    text: 'Breaking a large task into small concrete steps makes it easier to start. Procrastination often comes from a task that feels vague or overwhelming.',
  },
  {
    id: 'work-02',
    text: 'Remote work saves commuting time but blurs the line between job and home. A dedicated workspace and fixed hours help people switch off.',
  },
  {
    id: 'work-03',
    text: 'Meetings with a written agenda, a time limit and a named decision-maker end sooner and produce clearer outcomes.',
  },
  {
    id: 'work-04',
    text: 'A job interview goes better when the candidate researches the company and prepares concrete examples of past achievements.',
  },
  {
    id: 'work-05',
    text: 'Burnout is a state of emotional exhaustion caused by prolonged stress at work. Rest, clearer boundaries and support from managers help people recover.',
  },
  // French
  {
    id: 'fr-01',
    text: "La photosynthèse permet aux plantes de fabriquer du sucre à partir de la lumière du soleil, de l'eau et du dioxyde de carbone. Elle libère de l'oxygène dans l'atmosphère.",
  },
  {
    id: 'fr-02',
    text: 'Une base de données relationnelle range les informations dans des tables reliées par des clés. Le langage SQL sert à les interroger et à les modifier.',
  },
  {
    id: 'fr-03',
    text: "Pour réussir une pâte à pain, il faut de la farine, de l'eau, du sel et de la levure. Le pétrissage développe le gluten et la pâte lève pendant plusieurs heures.",
  },
  {
    id: 'fr-04',
    text: 'Le réchauffement climatique provient surtout de la combustion du charbon, du pétrole et du gaz. Les glaciers fondent et le niveau de la mer monte.',
  },
  {
    id: 'fr-05',
    text: "Les sauvegardes régulières protègent contre la perte de données. Il vaut mieux garder une copie hors ligne, à l'abri des rançongiciels.",
  },
  {
    id: 'fr-06',
    text: "La Révolution française commence en 1789 avec la prise de la Bastille. Elle abolit les privilèges et proclame les droits de l'homme et du citoyen.",
  },
  // Spanish
  {
    id: 'es-01',
    text: 'El aprendizaje automático permite que los ordenadores aprendan patrones a partir de datos sin ser programados de forma explícita. Se usa para reconocer imágenes y traducir textos.',
  },
  {
    id: 'es-02',
    text: 'La dieta mediterránea se basa en aceite de oliva, verduras, legumbres, pescado y fruta. Se asocia con un menor riesgo de enfermedades del corazón.',
  },
  {
    id: 'es-03',
    text: 'Si el coche no arranca por la mañana, lo más probable es que la batería esté descargada. Conviene revisarla antes del invierno.',
  },
  {
    id: 'es-04',
    text: 'Los terremotos se producen cuando las placas tectónicas se desplazan de golpe. Chile y México sufren sismos con frecuencia.',
  },
  {
    id: 'es-05',
    text: 'Dormir poco de forma habitual afecta a la memoria, al estado de ánimo y a las defensas del organismo. Los adultos necesitan entre siete y nueve horas.',
  },
  // German
  {
    id: 'de-01',
    text: 'Eine Firewall kontrolliert den Datenverkehr zwischen dem lokalen Netzwerk und dem Internet. Sie blockiert unerwünschte Verbindungen nach festgelegten Regeln.',
  },
  {
    id: 'de-02',
    text: 'Beim Kochen von Nudeln sollte das Wasser kräftig gesalzen sein und sprudelnd kochen. Die Nudeln werden bissfest serviert.',
  },
  {
    id: 'de-03',
    text: 'Elektroautos fahren mit einem Akku und einem Elektromotor. Sie stoßen während der Fahrt keine Abgase aus und lassen sich zu Hause laden.',
  },
  {
    id: 'de-04',
    text: 'Die Berliner Mauer fiel im November 1989. Ein Jahr später wurde Deutschland wiedervereinigt.',
  },
  {
    id: 'de-05',
    text: 'Regelmäßige Bewegung senkt den Blutdruck und stärkt das Herz. Schon ein täglicher Spaziergang von einer halben Stunde hilft.',
  },
];
