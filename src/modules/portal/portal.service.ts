import type { Executor, Tx } from '../../platform/db/schema.js';
import { notFound } from '../../platform/core/errors.js';
import type { ListProductsQuery, Product } from '../products/products.schemas.js';
import type { ProductsService } from '../products/products.service.js';
import type { CustomerClaimInput, CustomerClaimStatus } from '../warranty/warranty.schemas.js';
import type { ClaimAuthor, WarrantyService } from '../warranty/warranty.service.js';
import type { PortalProduct } from './portal.schemas.js';

/** Field by field, never a spread: a field added to products stays off dealer pages until someone puts it here. */
function toPortalProduct(product: Product): PortalProduct {
  return { sku: product.sku, name: product.name, description: product.description, tire_size: product.tire_size, availability: product.stock_status };
}

/** What a dealer's page reads and files, for the org of its portal key, through the products and warranty services. */
export class PortalService {
  constructor(
    private readonly products: ProductsService,
    private readonly warranty: WarrantyService,
  ) {}

  async catalog(db: Executor, orgId: string, query: ListProductsQuery): Promise<{ products: PortalProduct[]; next_cursor: string | null }> {
    const { products, next_cursor } = await this.products.list(db, orgId, query);
    return { products: products.map(toPortalProduct), next_cursor };
  }

  /** An active product; an inactive or discontinued one is not in the dealer's catalog, so it is not found. */
  async product(db: Executor, orgId: string, sku: string): Promise<PortalProduct> {
    const product = (await this.products.findBySkus(db, orgId, [sku])).get(sku.toLowerCase());
    if (product?.status !== 'active') throw notFound(`product ${sku}`);
    return toPortalProduct(product);
  }

  /** Each SKU asked for once (case-insensitively), in the order asked: active ones with availability, the rest apart. */
  async availability(db: Executor, orgId: string, skus: string[]): Promise<{ products: Pick<PortalProduct, 'sku' | 'availability'>[]; unknown: string[] }> {
    const found = await this.products.findBySkus(db, orgId, skus);
    const asked = [...new Map(skus.map((sku) => [sku.toLowerCase(), sku])).entries()];
    const products: Pick<PortalProduct, 'sku' | 'availability'>[] = [];
    const unknown: string[] = [];
    for (const [lower, sent] of asked) {
      const product = found.get(lower);
      if (product?.status === 'active') products.push({ sku: product.sku, availability: product.stock_status });
      else unknown.push(sent);
    }
    return { products, unknown };
  }

  fileClaim(tx: Tx, orgId: string, by: ClaimAuthor, input: CustomerClaimInput): Promise<CustomerClaimStatus> {
    return this.warranty.fileForCustomer(tx, orgId, by, input);
  }

  claimStatus(db: Executor, orgId: string, dealer: string | undefined, claimNumber: string, customerRef: string): Promise<CustomerClaimStatus> {
    return this.warranty.statusForCustomer(db, orgId, dealer, claimNumber, customerRef);
  }
}
