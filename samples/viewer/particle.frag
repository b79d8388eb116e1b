// A soft disc: opacity falls off as (1 - r^2)^2 and is 0 at the rim, so the
// quad's edges never show. Blended with SRC_ALPHA, ONE_MINUS_SRC_ALPHA.
#version 460
layout(location = 0) in vec2 uv;
layout(location = 1) flat in vec4 color;
layout(location = 0) out vec4 outColor;

void main() {
  const float r2 = dot(uv, uv);
  if (r2 >= 1.0) discard;
  const float f = 1.0 - r2;
  outColor = vec4(color.rgb, color.a * f * f);
}
