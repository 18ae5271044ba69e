import assert from "node:assert/strict";
import { isSoftwareRenderer } from "@/lib/client/software_gl.ts";

Deno.test("software GL - software rasterizers are recognised by their renderer strings", () => {
  for (
    const software of [
      // Debian Chromium 156 headless (what the e2e tests and the bench run on).
      "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)",
      "Google SwiftShader",
      "ANGLE (Google, SwiftShader Device (Subzero), OpenGL ES 3.0 SwiftShader)",
      "llvmpipe (LLVM 15.0.6, 256 bits)",
      "Mesa/X.org, llvmpipe (LLVM 12.0.0, 256 bits)",
      "softpipe",
      "ANGLE (Microsoft, Microsoft Basic Render Driver Direct3D11 vs_5_0 ps_5_0, D3D11)",
    ]
  ) {
    assert.equal(isSoftwareRenderer(software), true, software);
  }
});

Deno.test("software GL - GPUs and unknown names are not software", () => {
  for (
    const gpu of [
      "ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11 vs_5_0 ps_5_0, D3D11)",
      "ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)",
      "ANGLE (Apple, ANGLE Metal Renderer: Apple M2, Unspecified Version)",
      "Apple GPU",
      "Adreno (TM) 660",
      "Mali-G78",
      "AMD Radeon Pro 5500M OpenGL Engine",
      // Browsers that hide the unmasked name: nothing known, treated as a GPU.
      "WebKit WebGL",
      "",
    ]
  ) {
    assert.equal(isSoftwareRenderer(gpu), false, gpu);
  }
});
