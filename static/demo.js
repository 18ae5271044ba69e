// The demo page's browser-flow mint: POST the publishable keyId; the browser adds Origin.
const section = document.getElementById("demo");
const button = document.getElementById("mint");
const status = document.getElementById("status");

function setStatus(text, state) {
  status.textContent = text;
  status.dataset.status = state;
}

function decodeClaims(token) {
  const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(payload + "=".repeat((4 - payload.length % 4) % 4)));
}

async function mint() {
  setStatus("loading", "loading");
  try {
    const res = await fetch("/api/v1/sdk/session-tokens", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ keyId: section.dataset.keyId, projectId: section.dataset.project }),
    });
    const body = await res.json();
    if (!res.ok) {
      setStatus(`error: ${body.code} — ${body.detail}`, "error");
      return;
    }
    setStatus("ready", "ready");
    document.getElementById("expires").textContent = new Date(body.expiresAt * 1000)
      .toLocaleString();
    document.getElementById("claims").textContent = JSON.stringify(
      decodeClaims(body.token),
      null,
      2,
    );
  } catch (err) {
    setStatus(`error: ${err.message}`, "error");
  }
}

if (section && button) button.addEventListener("click", mint);
