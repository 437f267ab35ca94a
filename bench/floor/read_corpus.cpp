// Floor for the C++ runner: a native process starting and parsing every corpus file once with nlohmann/json.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
        const auto& p = entry.path();
        if (p.extension() == ".json" && p.filename() != "manifest.json") files.push_back(p);
    }
    std::sort(files.begin(), files.end());
    std::size_t count = 0;
    for (const auto& p : files) {
        std::ifstream in(p, std::ios::binary);
        count += nlohmann::json::parse(in)["vectors"].size();
    }
    std::cout << count << "\n";
}
