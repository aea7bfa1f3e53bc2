// rowwise/version.hpp — the library version (kept equal to project(VERSION) in CMakeLists.txt).
#pragma once

#define ROWWISE_VERSION_MAJOR 0
#define ROWWISE_VERSION_MINOR 1
#define ROWWISE_VERSION_PATCH 0
#define ROWWISE_VERSION (ROWWISE_VERSION_MAJOR * 10000 + ROWWISE_VERSION_MINOR * 100 + ROWWISE_VERSION_PATCH)
