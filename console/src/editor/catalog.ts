// The node catalog as the editor uses it (GET /api/node-catalog).
export interface Port {
  name: string;
  type: string;
  description?: string;
}

export interface CatalogNode {
  id: string;
  name: string;
  category: string;
  description: string;
  keywords: string[];
  trigger: string | null;
  inputs: Port[];
  outputs: Port[];
  config_schema: Record<string, unknown>;
}

export interface Catalog {
  nodes: CatalogNode[];
  categories: string[];
}

/** Catalog entries matching a search over name, id, description and keywords, in one category or all. */
export function filterCatalog(nodes: CatalogNode[], query: string, category: string): CatalogNode[] {
  const q = query.trim().toLowerCase();
  return nodes.filter(
    (n) => (category === "" || n.category === category) && (q === "" || [n.name, n.id, n.description, ...n.keywords].some((s) => s.toLowerCase().includes(q))),
  );
}
