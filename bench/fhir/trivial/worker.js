// Baseline for HTTP benchmarks: the most trivial Worker doing one D1 point read per request.
export default {
  async fetch(request, env) {
    const id = new URL(request.url).searchParams.get("id") ?? "";
    const row = await env.DB.prepare("SELECT id, name FROM organizations WHERE id = ?1").bind(id).first();
    return Response.json(row ?? {});
  },
};
