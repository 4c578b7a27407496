/**
 * The demo catalogue a fresh shop is seeded with: products a Kenyan general shop would sell,
 * three shoppers and their reviews. Each product's image ships with the project at
 * assets/demo-images/<slug>.webp (drawn by tools/make-demo-images.ts) and is served at
 * /images/<slug>.webp.
 */

export interface DemoProduct {
  /** Unique, lower-case, URL-safe; also the image's file name. */
  slug: string;
  name: string;
  category: string;
  description: string;
  /** Price in Kenyan shillings, at most two decimals. */
  priceKsh: number;
  countInStock: number;
}

export interface DemoUser {
  name: string;
  email: string;
}

export interface DemoReview {
  productSlug: string;
  shopperEmail: string;
  rating: 1 | 2 | 3 | 4 | 5;
  comment: string;
}

/** The image path of a demo product, as stored on the product and served by the shop. */
export function demoImagePath(product: Pick<DemoProduct, 'slug'>): string {
  return `/images/${product.slug}.webp`;
}

export const demoProducts: DemoProduct[] = [
  // Phones & Accessories
  {
    slug: 'samsung-galaxy-a15-128gb',
    name: 'Samsung Galaxy A15 128GB',
    category: 'Phones & Accessories',
    description:
      'A 6.5-inch Super AMOLED phone with 128GB of storage, a 50MP main camera and a 5000mAh battery that lasts all day. Dual SIM, with a one-year warranty.',
    priceKsh: 19_499,
    countInStock: 12,
  },
  {
    slug: 'tecno-spark-20-128gb',
    name: 'Tecno Spark 20 128GB',
    category: 'Phones & Accessories',
    description:
      'A stylish dual-SIM phone with a large 90Hz screen, 8GB of RAM and a 50MP camera. The 5000mAh battery charges quickly with the charger in the box.',
    priceKsh: 15_999,
    countInStock: 0,
  },
  {
    slug: 'infinix-hot-40i-128gb',
    name: 'Infinix Hot 40i 128GB',
    category: 'Phones & Accessories',
    description:
      'An affordable smartphone with a 6.56-inch screen, 128GB of storage and a 5000mAh battery. Good for WhatsApp, M-Pesa and everyday photos.',
    priceKsh: 14_299,
    countInStock: 3,
  },
  {
    slug: 'oraimo-freepods-lite',
    name: 'Oraimo FreePods Lite Wireless Earbuds',
    category: 'Phones & Accessories',
    description: 'Light Bluetooth earbuds with clear calls and strong bass. The charging case gives you up to 40 hours of music.',
    priceKsh: 2_699,
    countInStock: 25,
  },
  {
    slug: 'oraimo-wired-earphones',
    name: 'Oraimo Wired Earphones with Mic',
    category: 'Phones & Accessories',
    description:
      'Comfortable in-ear earphones with a 3.5mm jack and a built-in microphone for calls. A tangle-free cable that survives the matatu ride.',
    priceKsh: 349.5,
    countInStock: 60,
  },
  {
    slug: 'oraimo-power-bank-20000mah',
    name: 'Oraimo 20000mAh Fast-Charge Power Bank',
    category: 'Phones & Accessories',
    description:
      'Charges a phone four to five times on one fill, with two USB ports and USB-C. Handy during blackouts and long journeys.',
    priceKsh: 2_999,
    countInStock: 18,
  },

  // Electronics
  {
    slug: 'hisense-32-inch-smart-tv',
    name: 'Hisense 32" A4 Smart TV',
    category: 'Electronics',
    description:
      'A 32-inch HD smart TV with YouTube and Netflix built in and a free-to-air digital tuner. Comes with a wall bracket.',
    priceKsh: 18_499,
    countInStock: 7,
  },
  {
    slug: 'tcl-40-inch-android-tv',
    name: 'TCL 40" Full HD Android TV',
    category: 'Electronics',
    description:
      'A 40-inch Full HD Android TV with Google Play, Chromecast and a voice remote. Sharp picture and clear sound for the living room.',
    priceKsh: 26_999,
    countInStock: 5,
  },
  {
    slug: 'samsung-43-inch-crystal-uhd-tv',
    name: 'Samsung 43" Crystal UHD 4K Smart TV',
    category: 'Electronics',
    description:
      'A 43-inch 4K smart TV with vivid colour and a slim design. Stream your favourite shows and mirror your Samsung phone in one tap.',
    priceKsh: 42_999,
    countInStock: 2,
  },
  {
    slug: 'sun-king-pro-300-solar-lamp',
    name: 'Sun King Pro 300 Solar Lamp',
    category: 'Electronics',
    description:
      'A bright solar lamp with a separate panel, three light settings and a USB port to charge your phone. Up to 30 hours of light on a full charge.',
    priceKsh: 2_950,
    countInStock: 30,
  },
  {
    slug: 'vitron-rechargeable-fm-radio',
    name: 'Vitron Rechargeable FM Radio with Torch',
    category: 'Electronics',
    description:
      'A portable FM radio with a USB and memory-card player, a built-in torch and a rechargeable battery. Loud enough for the whole shamba.',
    priceKsh: 1_499,
    countInStock: 9,
  },

  // Kitchen & Home
  {
    slug: 'ramtons-2-slice-toaster',
    name: 'Ramtons 2-Slice Toaster',
    category: 'Kitchen & Home',
    description:
      'A compact toaster with wide slots, seven browning levels and a removable crumb tray. Breakfast ready in two minutes.',
    priceKsh: 2_895,
    countInStock: 11,
  },
  {
    slug: 'mika-blender-1-5l',
    name: 'Mika 1.5L Blender with Grinder',
    category: 'Kitchen & Home',
    description:
      'A 1.5-litre blender with two speeds and a pulse button, plus a small mill for spices and groundnuts. Perfect for juices and smoothies.',
    priceKsh: 3_795,
    countInStock: 5,
  },
  {
    slug: 'ramtons-cordless-kettle-1-7l',
    name: 'Ramtons 1.7L Cordless Electric Kettle',
    category: 'Kitchen & Home',
    description:
      'Boils 1.7 litres of water in a few minutes and switches off by itself. The cordless base turns all the way round.',
    priceKsh: 2_149,
    countInStock: 14,
  },
  {
    slug: 'aluminium-sufuria-set-5-pieces',
    name: 'Aluminium Sufuria Set (5 Pieces)',
    category: 'Kitchen & Home',
    description:
      'Five strong aluminium sufurias in sizes from 1 to 5 litres that stack inside each other. Good for ugali, githeri and chai.',
    priceKsh: 1_850,
    countInStock: 20,
  },
  {
    slug: 'vacuum-flask-1-9l',
    name: 'Floral Vacuum Flask 1.9L',
    category: 'Kitchen & Home',
    description: 'Keeps tea hot for up to 12 hours and water cold for 24. A big 1.9-litre flask with a carrying handle.',
    priceKsh: 1_450,
    countInStock: 16,
  },
  {
    slug: 'kentainers-jerrycan-20l',
    name: 'Kentainers Jerrycan 20L',
    category: 'Kitchen & Home',
    description:
      'A tough 20-litre plastic jerrycan with a screw cap and a comfortable handle. Made in Kenya for carrying and storing clean water.',
    priceKsh: 499,
    countInStock: 40,
  },
  {
    slug: 'k-gas-6kg-cylinder-with-grill',
    name: 'K-Gas 6kg Cylinder with Grill and Burner',
    category: 'Kitchen & Home',
    description:
      'A full 6kg gas cylinder with a burner and a pan grill that fit on top. A safe, simple way to start cooking with gas.',
    priceKsh: 4_500,
    countInStock: 4,
  },
  {
    slug: 'pro-gas-13kg-refill',
    name: 'Pro Gas 13kg Refill',
    category: 'Kitchen & Home',
    description: 'A full 13kg cylinder exchanged for your empty one. Sealed at the depot and delivered to your door.',
    priceKsh: 3_199,
    countInStock: 0,
  },

  // Groceries
  {
    slug: 'jogoo-maize-meal-2kg',
    name: 'Jogoo Maize Meal 2kg',
    category: 'Groceries',
    description: 'Fine white maize meal for soft, smooth ugali. A family favourite in a 2kg packet.',
    priceKsh: 165,
    countInStock: 80,
  },
  {
    slug: 'pembe-maize-flour-2kg',
    name: 'Pembe Maize Flour 2kg',
    category: 'Groceries',
    description: 'Sifted maize flour, fortified with vitamins and minerals. Makes firm ugali and smooth uji.',
    priceKsh: 159.5,
    countInStock: 65,
  },
  {
    slug: 'ketepa-pride-tea-500g',
    name: 'Ketepa Pride Tea 500g',
    category: 'Groceries',
    description: 'Strong black Kenyan tea leaves for a rich cup of chai. The 500g packet lasts a family for weeks.',
    priceKsh: 289.5,
    countInStock: 35,
  },
  {
    slug: 'dormans-ground-coffee-250g',
    name: 'Dormans Ground Coffee 250g',
    category: 'Groceries',
    description: 'Medium-roast ground coffee from Kenyan highland beans. Rich and smooth for the cafetiere or filter.',
    priceKsh: 795,
    countInStock: 15,
  },
  {
    slug: 'kabras-sugar-2kg',
    name: 'Kabras Sugar 2kg',
    category: 'Groceries',
    description: 'Clean white sugar from Western Kenya, packed in a 2kg bag. For chai, baking and mandazi.',
    priceKsh: 339,
    countInStock: 0,
  },
  {
    slug: 'fresh-fri-cooking-oil-3l',
    name: 'Fresh Fri Cooking Oil 3L',
    category: 'Groceries',
    description: 'Light vegetable cooking oil, cholesterol free, in a 3-litre bottle with a handle. Good for frying and stews.',
    priceKsh: 1_099,
    countInStock: 22,
  },
  {
    slug: 'elianto-corn-oil-1l',
    name: 'Elianto Corn Oil 1L',
    category: 'Groceries',
    description: 'Pure corn oil, light in taste and rich in vitamin E. A 1-litre bottle for everyday cooking.',
    priceKsh: 449.5,
    countInStock: 1,
  },

  // Fashion
  {
    slug: 'cotton-kikoi-beach-wrap',
    name: 'Cotton Kikoi Beach Wrap',
    category: 'Fashion',
    description:
      'A hand-woven cotton kikoi from the coast with bright stripes and tasselled ends. Wear it as a wrap, a scarf or a beach towel.',
    priceKsh: 1_200,
    countInStock: 16,
  },
  {
    slug: 'printed-kanga-pair',
    name: 'Printed Kanga Pair (Leso)',
    category: 'Fashion',
    description:
      'A pair of soft cotton kangas with a bold printed border and centre. Two matching pieces, about 110 by 150 cm each.',
    priceKsh: 850,
    countInStock: 11,
  },
  {
    slug: 'maasai-shuka-red-check',
    name: 'Maasai Shuka, Red Check',
    category: 'Fashion',
    description: 'The classic red checked Maasai shuka, warm and hard-wearing. Use it as a wrap, a throw or a picnic blanket.',
    priceKsh: 1_350,
    countInStock: 8,
  },
  {
    slug: 'maasai-shuka-blue-check',
    name: 'Maasai Shuka, Blue Check',
    category: 'Fashion',
    description: 'A warm Maasai shuka in blue and black checks with fringed ends. A colourful blanket for cold Nairobi evenings.',
    priceKsh: 1_350,
    countInStock: 0,
  },
  {
    slug: 'akala-tyre-sandals',
    name: 'Akala Tyre Sandals',
    category: 'Fashion',
    description: 'Hand-made sandals with soles cut from old car tyres and leather straps. They last for years on any road.',
    priceKsh: 600,
    countInStock: 4,
  },
  {
    slug: 'bata-leather-sandals',
    name: "Bata Men's Leather Sandals",
    category: 'Fashion',
    description:
      'Brown leather sandals with adjustable straps and a cushioned sole. Smart enough for church, easy enough for every day.',
    priceKsh: 2_499,
    countInStock: 6,
  },

  // Sports & Outdoors
  {
    slug: 'mitre-size-5-football',
    name: 'Mitre Size 5 Training Football',
    category: 'Sports & Outdoors',
    description: 'A stitched size 5 football for grass and murram pitches. Holds its shape and its air through many matches.',
    priceKsh: 2_200,
    countInStock: 10,
  },
  {
    slug: 'hiking-backpack-40l',
    name: 'Waterproof Hiking Backpack 40L',
    category: 'Sports & Outdoors',
    description:
      'A 40-litre backpack with padded straps, a rain cover and many pockets. Ready for Mount Kenya or a weekend in Naivasha.',
    priceKsh: 3_499,
    countInStock: 3,
  },
  {
    slug: 'stainless-steel-water-bottle-750ml',
    name: 'Stainless Steel Water Bottle 750ml',
    category: 'Sports & Outdoors',
    description: 'A double-walled bottle that keeps water cold all day. Leak-proof lid with a carrying loop.',
    priceKsh: 899,
    countInStock: 0,
  },

  // School & Office
  {
    slug: 'kasuku-exercise-books-a4-10-pack',
    name: 'Kasuku A4 Exercise Books 200 Pages (Pack of 10)',
    category: 'School & Office',
    description: 'Ten ruled A4 exercise books with strong covers, 200 pages each. Enough for a whole term of notes.',
    priceKsh: 1_499,
    countInStock: 24,
  },
  {
    slug: 'kasuku-exercise-books-a5-12-pack',
    name: 'Kasuku A5 Exercise Books 96 Pages (Pack of 12)',
    category: 'School & Office',
    description: 'Twelve ruled A5 exercise books, 96 pages each, for primary school pupils.',
    priceKsh: 594,
    countInStock: 50,
  },
  {
    slug: 'bic-cristal-pens-blue-10-pack',
    name: 'Bic Cristal Ballpoint Pens, Blue (Pack of 10)',
    category: 'School & Office',
    description: 'Ten smooth-writing blue Bic Cristal pens with a clear barrel. A school and office staple.',
    priceKsh: 249.5,
    countInStock: 100,
  },
  {
    slug: 'casio-fx-82ms-calculator',
    name: 'Casio fx-82MS Scientific Calculator',
    category: 'School & Office',
    description:
      'A non-programmable scientific calculator for secondary school maths and science, with 240 functions and a two-line display.',
    priceKsh: 1_650,
    countInStock: 2,
  },
  {
    slug: 'kids-school-backpack',
    name: "Kids' School Backpack",
    category: 'School & Office',
    description: 'A light, strong school bag with padded straps and a front pocket for pens. Fits A4 books.',
    priceKsh: 1_299,
    countInStock: 13,
  },
];

export const demoShoppers: DemoUser[] = [
  { name: 'Wanjiku Kamau', email: 'wanjiku@example.com' },
  { name: 'Brian Otieno', email: 'brian@example.com' },
  { name: 'Amina Hassan', email: 'amina@example.com' },
];

export const demoReviews: DemoReview[] = [
  {
    productSlug: 'samsung-galaxy-a15-128gb',
    shopperEmail: 'wanjiku@example.com',
    rating: 5,
    comment: 'Delivered to Thika in two days. The screen is bright and the battery easily lasts all day.',
  },
  {
    productSlug: 'ketepa-pride-tea-500g',
    shopperEmail: 'wanjiku@example.com',
    rating: 5,
    comment: 'Strong tea, just like at home. I buy it every month.',
  },
  {
    productSlug: 'ramtons-cordless-kettle-1-7l',
    shopperEmail: 'wanjiku@example.com',
    rating: 4,
    comment: 'Boils fast and switches off by itself. The handle gets a little warm.',
  },
  {
    productSlug: 'maasai-shuka-red-check',
    shopperEmail: 'wanjiku@example.com',
    rating: 4,
    comment: 'Warm and thick, the colours stayed after washing. Slightly smaller than I expected.',
  },
  {
    productSlug: 'samsung-galaxy-a15-128gb',
    shopperEmail: 'brian@example.com',
    rating: 4,
    comment: 'Good phone for the price and the camera is fine in daylight. Charger not very fast.',
  },
  {
    productSlug: 'mitre-size-5-football',
    shopperEmail: 'brian@example.com',
    rating: 5,
    comment: 'We play on murram every Saturday and it still looks new after a month.',
  },
  {
    productSlug: 'oraimo-power-bank-20000mah',
    shopperEmail: 'brian@example.com',
    rating: 3,
    comment: 'Holds a lot of charge but takes a whole night to fill up.',
  },
  {
    productSlug: 'hisense-32-inch-smart-tv',
    shopperEmail: 'brian@example.com',
    rating: 2,
    comment: 'Picture is okay but the remote stopped working after a week. The shop replaced it though.',
  },
  {
    productSlug: 'jogoo-maize-meal-2kg',
    shopperEmail: 'amina@example.com',
    rating: 5,
    comment: 'Makes very smooth ugali. Good price too.',
  },
  {
    productSlug: 'sun-king-pro-300-solar-lamp',
    shopperEmail: 'amina@example.com',
    rating: 5,
    comment: 'My mother upcountry uses it every night and charges her phone with it. Very bright.',
  },
  {
    productSlug: 'mika-blender-1-5l',
    shopperEmail: 'amina@example.com',
    rating: 3,
    comment: 'Blends juice well, but it is loud and the jar lid is tight.',
  },
  {
    productSlug: 'printed-kanga-pair',
    shopperEmail: 'amina@example.com',
    rating: 1,
    comment: 'The colours ran the first time I washed them. Disappointed.',
  },
];
