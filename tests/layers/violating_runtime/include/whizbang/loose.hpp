// A public header flat beside the layer folders.
#pragma once
