/** Articles on distinct subjects for the knowledge-engine tests (written for these tests). */
export const ARTICLES = {
  photosynthesis: `Photosynthesis is the process by which green plants, algae and some bacteria use sunlight to make food from carbon dioxide and water. It takes place mostly in the chloroplasts of leaf cells, where the pigment chlorophyll absorbs red and blue light. The energy captured from light is stored in the chemical bonds of glucose, and oxygen is released as a by-product.

The light-dependent reactions happen in the thylakoid membranes and produce two energy carriers, ATP and NADPH. The Calvin cycle then uses those carriers in the stroma to fix carbon dioxide into three-carbon sugars. Plants later turn these sugars into starch for storage or into cellulose for their cell walls.`,
  volcanoes: `A volcano is an opening in the crust of a planet through which molten rock, ash and gases escape from below the surface. Most volcanoes on Earth form where tectonic plates pull apart or where one plate sinks beneath another. When magma rises and pressure builds up in the chamber, an eruption can send lava flows down the slopes and ash high into the atmosphere.

Volcanologists watch active volcanoes with seismometers, satellite radar and gas sensors to warn nearby towns before an eruption. Some eruptions are quiet and effusive, like those of Hawaii, while others are violently explosive, like the 1980 eruption of Mount St. Helens. Volcanic soils are often very fertile, which is why farmers have lived on their flanks for thousands of years.`,
  databases: `A relational database stores data in tables made of rows and columns, and relates tables to each other through keys. Queries are written in SQL, a declarative language in which the programmer says what result is wanted rather than how to compute it. The query planner chooses indexes and join orders so that the same question can be answered quickly even over millions of rows.

Transactions group several changes so that they either all happen or none do, which keeps the data consistent after a crash. Write-ahead logging records every change before it is applied to the main file, so the database can recover to a known good state when the power fails. Modern engines such as SQLite, PostgreSQL and MySQL all rely on these ideas.`,
  stoicism: `Stoicism is a school of philosophy founded in Athens by Zeno of Citium in the early third century before our era. The Stoics taught that virtue is the only true good and that a wise person should accept with calm the events that lie outside their control. They believed that destructive emotions come from errors of judgement, and that reason allows a person to live in agreement with nature.

Later Stoics such as Seneca, Epictetus and the emperor Marcus Aurelius wrote practical guides on how to live an ethical life. Their writings discuss duty, friendship, grief and the fear of death, and ask the reader to examine their own beliefs each evening. Many modern readers still turn to these texts for advice on resilience and self-discipline.`,
};

export type ArticleName = keyof typeof ARTICLES;
