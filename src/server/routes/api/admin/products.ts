import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody } from '../../../../shared/schemas/common.js';
import { adminProductPage, productListQuery } from '../../../../shared/schemas/products.js';
import type { Db } from '../../../db/client.js';
import { listAdminProducts } from '../../../domain/admin-catalogue.js';

const tags = ['products'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

/** The admin's product list: drafts too, which the storefront's /api/products never shows. */
const adminProductRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get('/api/admin/products', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary: 'A page of every product, drafts too, newest first; keyword matches name, category or description (admin)',
      querystring: productListQuery,
      response: { 200: adminProductPage, ...errors },
    },
    handler: (request) => listAdminProducts(db, { page: request.query.pageNumber, keyword: request.query.keyword }),
  });
};

export default adminProductRoutes;
