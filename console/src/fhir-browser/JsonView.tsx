// A FHIR resource as pretty-printed JSON (two-space indent, as JSON.stringify would) in which every
// `reference` that points into the organization's store is a link to that resource's page.
import type { ReactNode } from "react";
import { Link } from "wouter";
import { referenceTarget } from "./references";

function render(value: unknown, indent: string, basePath: string, key?: string): ReactNode {
  if (typeof value === "string" && key === "reference") {
    const href = referenceTarget(value, basePath);
    if (href) return <>"<Link href={href}>{value}</Link>"</>;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const inner = `${indent}  `;
    return (
      <>
        {"[\n"}
        {value.map((v, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a JSON array's positions are its identity here.
          <span key={i}>
            {inner}
            {render(v, inner, basePath)}
            {i < value.length - 1 ? ",\n" : "\n"}
          </span>
        ))}
        {`${indent}]`}
      </>
    );
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    const inner = `${indent}  `;
    return (
      <>
        {"{\n"}
        {entries.map(([k, v], i) => (
          <span key={k}>
            {inner}
            {JSON.stringify(k)}: {render(v, inner, basePath, k)}
            {i < entries.length - 1 ? ",\n" : "\n"}
          </span>
        ))}
        {`${indent}}`}
      </>
    );
  }
  return JSON.stringify(value);
}

export function JsonView({ value, basePath, label }: { value: unknown; basePath: string; label: string }) {
  return (
    <figure className="json-block" aria-label={label}>
      <pre className="resource-json">
        {render(value, "", basePath)}
      </pre>
    </figure>
  );
}
