// The web console's files (src/server/web/: index.html, app.js, style.css, and uPlot's script
// and style copied from node_modules at build time), compiled into the binary by
// cmake/embed_assets.cmake into a generated source.
#pragma once

#include <cstddef>
#include <string_view>

namespace silt::server {

struct Asset {
  const char* name;  // "index.html", "uPlot.iife.min.js", …
  const char* content_type;
  const char* data;
  size_t size;
};

// The asset called `name`, or null.
const Asset* FindAsset(std::string_view name);
// True when uPlot was vendored into this build (npm and src/server/web/node_modules were there);
// without it the console shows its history figures as tables.
bool HasChartLibrary();

}  // namespace silt::server
