import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, idParams, messageBody } from '../../../shared/schemas/common.js';
import {
  adminProduct,
  adminProductDetail,
  categoryCount,
  product,
  productUpdateBody,
  reviewBody,
  reviewParams,
  storefrontListQuery,
  storefrontPage,
} from '../../../shared/schemas/products.js';
import { productVariantsBody } from '../../../shared/schemas/variants.js';
import type { CatalogueAnswers } from '../../cache/catalogue-answers.js';
import type { CachedAnswer } from '../../cache/catalogue-cache.js';
import type { Db } from '../../db/client.js';
import {
  createSampleProduct,
  deleteProduct,
  getAdminProductDetail,
  listDrafts,
  updateProduct,
} from '../../domain/admin-catalogue.js';
import type { CatalogueChanges } from '../../domain/catalogue-changes.js';
import { replaceVariants } from '../../domain/product-variants.js';
import { addReview, deleteReview } from '../../domain/reviews.js';
import { AppError } from '../../errors.js';
import { sendConditional } from '../../http/conditional.js';
import { acceptFormBodies } from '../../plugins/packages/form-bodies.js';
import { ADMIN_HINT_COOKIE, currentUser, SESSION_COOKIE } from '../../plugins/shop/sessions.js';

const tags = ['products'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

/**
 * Sends a catalogue answer from the cache. Browsers keep it but ask again every time
 * (`no-cache`); an unchanged answer costs them a 304 with no body.
 */
function sendCached(request: FastifyRequest, reply: FastifyReply, answer: CachedAnswer): Promise<void> {
  reply.header('cache-control', 'no-cache').type('application/json; charset=utf-8');
  return sendConditional(request, reply, answer.etag, () => answer.body);
}

/**
 * Whether the request comes from a signed-in admin, looked up only when it carries a session
 * cookie and the hint an admin's sign-in sets beside it, so a shopper's read costs no session
 * lookup. An answer that follows the session is for this browser only (no-store); anyone else's
 * is the public one, and stays cacheable.
 */
async function signedInAdmin(app: FastifyInstance, request: FastifyRequest): Promise<boolean> {
  if (!request.cookies[SESSION_COOKIE] || !request.cookies[ADMIN_HINT_COOKIE]) return false;
  const admin = await app.requireAdmin(request).then(
    () => true,
    () => false,
  );
  if (!admin) request.privateAnswer = false;
  return admin;
}

/** Public, cacheable answers: no cookie handed out with them (see plugins/shop/xsrf.ts). */
const PUBLIC_ANSWER = { xsrfCookie: false } as const;

interface ProductRouteOptions {
  db: Db;
  changes: CatalogueChanges;
  answers: CatalogueAnswers;
}

/** The products and their reviews: the storefront's reads, the admin's edits, the shoppers' reviews. */
const productRoutes: FastifyPluginAsyncZod<ProductRouteOptions> = async (app, options) => {
  await acceptFormBodies(app);
  await storefrontRoutes(app, options);
  await productEditRoutes(app, options);
  await reviewRoutes(app, options);
};

export default productRoutes;

/** The storefront's reads, answered from the catalogue cache (a draft only to an admin). */
const storefrontRoutes: FastifyPluginAsyncZod<ProductRouteOptions> = async (app, { db, answers }) => {
  app.get('/api/products', {
    config: PUBLIC_ANSWER,
    schema: {
      tags,
      summary:
        'A page of products, newest first, or the best matches for a keyword; narrowed by category and price range, in a sort',
      querystring: storefrontListQuery,
      response: { 200: storefrontPage, 400: errorBody },
    },
    handler: async (request, reply) => {
      const { pageNumber, keyword, category, sort, minPrice, maxPrice } = request.query;
      const answer = await answers.page({ page: pageNumber, keyword, category, sort, minPrice, maxPrice });
      const wholeList = pageNumber === 1 && !keyword && !category && minPrice === undefined && maxPrice === undefined;
      if (wholeList && (await signedInAdmin(app, request))) {
        const drafts = await listDrafts(db);
        if (drafts.length > 0) {
          const page = JSON.parse(answer.body) as z.infer<typeof storefrontPage>;
          return { ...page, products: [...drafts, ...page.products] };
        }
      }
      return sendCached(request, reply, answer);
    },
  });

  // A static path: the router prefers it to /api/products/:id, so "categories" is never taken for an id.
  app.get('/api/products/categories', {
    config: PUBLIC_ANSWER,
    schema: {
      tags,
      summary: 'Every category with a product in the storefront, and how many products it has, by name',
      response: { 200: z.array(categoryCount) },
    },
    handler: async (request, reply) => sendCached(request, reply, await answers.categories()),
  });

  app.get('/api/products/top', {
    config: PUBLIC_ANSWER,
    schema: { tags, summary: 'The three highest rated products', response: { 200: z.array(product) } },
    handler: async (request, reply) => sendCached(request, reply, await answers.top()),
  });

  app.get('/api/products/:id', {
    config: PUBLIC_ANSWER,
    schema: {
      tags,
      summary: 'One product with its reviews; a draft answers 404 to all but admins',
      params: idParams,
      response: { 200: adminProductDetail, ...errors },
    },
    handler: async (request, reply) => {
      try {
        return await sendCached(request, reply, await answers.detail(request.params.id));
      } catch (error) {
        // The cache holds only what the storefront shows. A product it does not know may be a
        // draft, which an admin (only an admin) may read: the session is looked at only then, so
        // every other answer stays public and cacheable.
        if (!(error instanceof AppError) || error.statusCode !== 404 || !request.cookies[SESSION_COOKIE]) throw error;
        await app.requireAdmin(request).catch(() => {
          throw error;
        });
        return getAdminProductDetail(db, request.params.id);
      }
    },
  });
};

/** The admin's product edits: create a draft, update it and its variants, delete a product. */
const productEditRoutes: FastifyPluginAsyncZod<ProductRouteOptions> = async (app, { db, changes }) => {
  app.post('/api/products', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary: 'Create a sample product to edit (admin): a draft, unseen in the storefront until it has a name, price and image',
      response: { 201: adminProduct, ...errors },
    },
    handler: async (request, reply) => reply.status(201).send(await createSampleProduct(db, changes, currentUser(request).id)),
  });

  app.put('/api/products/:id', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary: 'Update a product from JSON or form data (admin)',
      params: idParams,
      body: productUpdateBody,
      response: { 200: adminProduct, ...errors },
    },
    handler: (request) => updateProduct(db, changes, request.params.id, request.body),
  });

  app.put('/api/products/:id/variants', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary:
        "Replace a product's options and variants (admin): a variant sent with its _id keeps it, one without gets a new id, one left out is removed; no options makes it a plain product again",
      params: idParams,
      body: productVariantsBody,
      response: { 200: adminProductDetail, ...errors },
    },
    handler: (request) => replaceVariants(db, changes, request.params.id, request.body),
  });

  app.delete('/api/products/:id', {
    onRequest: app.requireAdmin,
    schema: { tags, summary: 'Delete a product (admin)', params: idParams, response: { 200: messageBody, ...errors } },
    handler: async (request) => {
      await deleteProduct(db, changes, request.params.id);
      return { msg: 'Product deleted' };
    },
  });
};

/** A shopper's review of a product, and its deletion by its author or an admin. */
const reviewRoutes: FastifyPluginAsyncZod<ProductRouteOptions> = async (app, { db, changes }) => {
  app.post('/api/products/:id/reviews', {
    onRequest: app.requireUser,
    schema: {
      tags,
      summary: 'Review a product (once per shopper)',
      params: idParams,
      body: reviewBody,
      response: { 201: messageBody, ...errors },
    },
    handler: async (request, reply) => {
      await addReview(db, changes, request.params.id, currentUser(request), request.body);
      return reply.status(201).send({ msg: 'Review added' });
    },
  });

  app.delete('/api/products/:id/:reviewId', {
    onRequest: app.requireUser,
    schema: {
      tags,
      summary: 'Delete a review (its author or an admin)',
      params: reviewParams,
      response: { 200: messageBody, ...errors },
    },
    handler: async (request) => {
      await deleteReview(db, changes, request.params.id, request.params.reviewId, currentUser(request));
      return { msg: 'Review deleted' };
    },
  });
};
