// The storefront's own script: listens to the configurator's events and adds the hub-signed
// configuration to the cart (the storefront's server verifies the signature with the hub's JWKS).
const cfg = document.getElementById("cfg");
const add = document.getElementById("add");
const cart = document.getElementById("cart");
const status = document.getElementById("status");
const dims = document.getElementById("dims");

cfg.addEventListener("cad-status", (e) => {
  status.textContent = e.detail.tokenStatus.state;
  document.body.dataset.tokenStatus = e.detail.tokenStatus.state;
});
cfg.addEventListener("cad-ready", () => (add.disabled = false));
cfg.addEventListener("cad-rendered", (e) => {
  const { bbox } = e.detail.result;
  const d = bbox.max.map((m, i) => Math.round(m - bbox.min[i]));
  dims.textContent = `Dimensions: ${d[0]} × ${d[1]} × ${d[2]} mm`;
});
cfg.addEventListener("cad-error", (e) => {
  document.body.dataset.errorCode = e.detail.code;
});
cfg.addEventListener("cad-tokenexpired", async () => {
  // Server flow only: ask our backend for a new token and hand it over.
  const res = await fetch("/api/session-token", { method: "POST" });
  if (res.ok) cfg.setSessionToken((await res.json()).token);
});

add.addEventListener("click", async () => {
  add.disabled = true;
  try {
    const { configuration } = await cfg.getConfiguration();
    const res = await fetch("/api/cart", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ configuration }),
    });
    const body = await res.json();
    cart.dataset.state = res.ok ? "ok" : "error";
    cart.textContent = res.ok
      ? `Added: ${body.item.project} v${body.item.version} · ${body.item.dagHash.slice(0, 12)}…`
      : `Not added: ${body.reason}`;
  } catch (err) {
    cart.dataset.state = "error";
    cart.textContent = `Not added: ${err.message}`;
  } finally {
    add.disabled = false;
  }
});
